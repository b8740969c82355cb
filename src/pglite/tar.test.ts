import { mkdtemp, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractTar, TarError, tarEntries } from './tar.js';

/** A ustar member as PGlite's dump writes it: name, mode, octal size, type, magic, then the data padded to 512. */
function member(name: string, data: string | undefined, type = data === undefined ? '5' : '0', mode = 0o600): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 'latin1');
  header.write(`${(data ?? '').length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write(type, 156, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  const body = Buffer.alloc(Math.ceil((data ?? '').length / 512) * 512);
  body.write(data ?? '', 'latin1');
  return Buffer.concat([header, body]);
}
const tar = (...members: Buffer[]): Buffer => Buffer.concat([...members, Buffer.alloc(1024)]);

describe('unpacking a PGlite dump (ustar)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-tar-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes directories and files with their modes and contents', async () => {
    const archive = tar(
      member('/PG_VERSION', '17\n'),
      member('/base', undefined, '5', 0o700),
      member('/base/5', undefined, '5', 0o700),
      member('/base/5/1255', 'x'.repeat(1000)),
      member('/postgresql.conf', '# conf\n', '0', 0o644),
    );
    expect(tarEntries(archive)?.map((e) => [e.name, e.type, e.size, e.mode])).toEqual([
      ['/PG_VERSION', '0', 3, 0o600],
      ['/base', '5', 0, 0o700],
      ['/base/5', '5', 0, 0o700],
      ['/base/5/1255', '0', 1000, 0o600],
      ['/postgresql.conf', '0', 7, 0o644],
    ]);
    await extractTar(archive, join(dir, 'pgdata'), 'PG_VERSION');
    expect((await readdir(join(dir, 'pgdata'))).sort()).toEqual(['PG_VERSION', 'base', 'postgresql.conf']);
    expect(await readFile(join(dir, 'pgdata/base/5/1255'), 'utf8')).toBe('x'.repeat(1000));
    expect(await readFile(join(dir, 'pgdata/PG_VERSION'), 'utf8')).toBe('17\n');
    expect((await stat(join(dir, 'pgdata/postgresql.conf'))).mode & 0o777).toBe(0o644);
    expect((await stat(join(dir, 'pgdata/base/5'))).mode & 0o777).toBe(0o700);
  });

  it('writes the last member after all others: stopped half way, the directory has no PG_VERSION', async () => {
    // A directory where the archive has a file makes the write of that file fail, after others.
    await mkdir(join(dir, 'pgdata/global/1262'), { recursive: true });
    const archive = tar(
      member('/PG_VERSION', '17\n'),
      member('/global', undefined),
      member('/global/1213', 'a'),
      member('/global/1262', 'b'),
    );
    await expect(extractTar(archive, join(dir, 'pgdata'), 'PG_VERSION')).rejects.toThrow(/EISDIR/);
    expect((await readdir(join(dir, 'pgdata'))).sort()).toEqual(['global']);
    expect(await readFile(join(dir, 'pgdata/global/1213'), 'utf8')).toBe('a');
  });

  it('refuses, writing nothing, a member outside the directory, a link, or an archive it cannot read', async () => {
    const target = join(dir, 'out');
    const cases: [Buffer, RegExp][] = [
      [tar(member('/PG_VERSION', '17\n'), member('/../escape', 'x')), /outside the directory: \/\.\.\/escape/],
      [tar(member('/a', 'x'), member('/b', '', '2')), /type '2'.*: \/b/],
      [tar(member('/a', 'x')).subarray(0, 700), /truncated/],
      [Buffer.from('not a tar at all'.repeat(64)), /ustar/],
    ];
    for (const [archive, message] of cases) {
      await expect(extractTar(archive, target, 'PG_VERSION')).rejects.toThrow(message);
      await expect(extractTar(archive, target)).rejects.toBeInstanceOf(TarError);
      expect(await readdir(dir)).toEqual([]);
    }
  });
});
