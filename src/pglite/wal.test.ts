import { describe, expect, it } from 'vitest';
import { tarEntries } from './tar.js';
import { dropUnneededWal, walSegment } from './wal.js';

/** A ustar member as PGlite's dump writes it: name, octal size, magic, then the data padded to 512. */
function member(name: string, data = ''): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  const body = Buffer.alloc(Math.ceil(data.length / 512) * 512);
  body.write(data, 'latin1');
  return Buffer.concat([header, body]);
}

const tar = (...members: Buffer[]): Buffer => Buffer.concat([...members, Buffer.alloc(1024)]);
const names = (t: Uint8Array): string[] | undefined => tarEntries(t)?.map((e) => e.name);
const seg = (n: number): string => `/pg_wal/0000000100000000000000${n.toString(16).toUpperCase().padStart(2, '0')}`;

describe('WAL segments of a PGlite dump', () => {
  const dump = tar(
    member('/PG_VERSION', '17\n'),
    member('/pg_wal'),
    member('/pg_wal/archive_status'),
    member(seg(6), 'old'),
    member(seg(7), 'redo'),
    member(seg(8), 'insert'.repeat(200)),
    member(seg(9), 'recycled'),
    member('/base/5/1255', 'catalog'),
  );

  it('reads the members of a ustar archive, and recognises segment files at the top of pg_wal only', () => {
    expect(names(dump)).toEqual([
      '/PG_VERSION',
      '/pg_wal',
      '/pg_wal/archive_status',
      seg(6),
      seg(7),
      seg(8),
      seg(9),
      '/base/5/1255',
    ]);
    expect(walSegment(seg(7))).toBe('000000010000000000000007');
    expect(walSegment('pg_wal/000000010000000000000007')).toBe('000000010000000000000007');
    expect(walSegment('/pg_wal/archive_status/000000010000000000000007.done')).toBeUndefined();
    expect(walSegment('/pg_wal/summaries')).toBeUndefined();
  });

  it('keeps the segments from the redo record to the insert position and every other file, byte for byte', () => {
    const slim = dropUnneededWal(dump, { first: '000000010000000000000007', last: '000000010000000000000008' });
    expect(names(slim)).toEqual(['/PG_VERSION', '/pg_wal', '/pg_wal/archive_status', seg(7), seg(8), '/base/5/1255']);
    expect(Buffer.from(slim)).toEqual(
      tar(
        member('/PG_VERSION', '17\n'),
        member('/pg_wal'),
        member('/pg_wal/archive_status'),
        member(seg(7), 'redo'),
        member(seg(8), 'insert'.repeat(200)),
        member('/base/5/1255', 'catalog'),
      ),
    );
  });

  it('gives back what it does not understand, or has nothing to drop from, unchanged', () => {
    const all = { first: '000000010000000000000006', last: '000000010000000000000009' };
    expect(dropUnneededWal(dump, all)).toBe(dump);
    const one = { first: '000000010000000000000007', last: '000000010000000000000007' };
    const notTar = Buffer.from('not a tar file');
    expect(dropUnneededWal(notTar, one)).toBe(notTar);
    const truncated = dump.subarray(0, 512 * 6 + 100);
    expect(tarEntries(truncated)).toBeUndefined();
    expect(dropUnneededWal(truncated, one)).toBe(truncated);
    const gnu = Buffer.from(dump);
    gnu.write('gnu  ', 257, 'latin1');
    expect(dropUnneededWal(gnu, one)).toBe(gnu);
  });
});
