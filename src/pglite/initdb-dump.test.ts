import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInMemory } from './initdb-dump.js';
import { tarEntries } from './tar.js';
import { walSegment } from './wal.js';

const segmentsIn = (path: string): string[] =>
  (tarEntries(readFileSync(path)) ?? []).map((e) => walSegment(e.name)).filter((s) => s !== undefined);

// Each case runs a real initdb (seconds on a busy 2-core machine): the default 5 s is too tight.
describe('PGlite template (real PGlite)', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tpl-'));
  const path = join(dir, 'cache', 'pglite-test.tar');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the template on first use, and an instance loaded from it is a working, untouched database', async () => {
    const first = await createInMemory(path);
    await first.exec('CREATE TABLE only_in_first (x INT)');
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
    await first.close();

    const second = await createInMemory(path);
    const tables = await second.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_first'",
    );
    expect(tables.rows[0]?.n).toBe(0);
    await second.exec('CREATE TABLE t (x INT); INSERT INTO t VALUES (1), (2)');
    expect((await second.query<{ s: number }>('SELECT sum(x)::int AS s FROM t')).rows[0]?.s).toBe(3);
    await second.close();
  });

  it('a damaged template still gives a working database, and is written anew', async () => {
    writeFileSync(path, 'not a tar file');
    const db = await createInMemory(path);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    await db.close();
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
  });

  it('a slim template is smaller, has only the database in use, and the settings reach the server', async () => {
    const slimPath = join(dir, 'cache', 'engine-test.tar');
    const opts = { slim: true, settings: { shared_buffers: '16MB' } };
    const first = await createInMemory(slimPath, opts);
    await first.close();
    expect(statSync(slimPath).size).toBeLessThan(statSync(path).size / 2);

    const db = await createInMemory(slimPath, opts);
    const dbs = await db.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY datname');
    expect(dbs.rows.map((r) => r.datname)).toEqual(['postgres']);
    const setting = await db.query<{ v: string }>("SELECT current_setting('shared_buffers') AS v");
    expect(setting.rows[0]?.v).toBe('16MB');
    await db.exec('CREATE TABLE t (x INT); INSERT INTO t SELECT generate_series(1, 1000)');
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]?.n).toBe(1000);
    await db.close();
  });

  it('a slim template holds one WAL segment, is loaded (not rebuilt), and writes past it survive a checkpoint', async () => {
    const slimPath = join(dir, 'cache', 'engine-wal.tar');
    const opts = { slim: true, settings: { shared_buffers: '16MB' } };
    await (await createInMemory(slimPath, opts)).close();
    expect(segmentsIn(slimPath)).toHaveLength(1);
    const written = statSync(slimPath);

    const db = await createInMemory(slimPath, opts);
    // A damaged or unreadable template would be replaced by a new file (rename: a new inode).
    expect(statSync(slimPath).ino).toBe(written.ino);
    expect(statSync(slimPath).mtimeMs).toBe(written.mtimeMs);
    // Several MiB of WAL: the server creates the segments the template left out.
    await db.exec(`CREATE TABLE t (x INT, pad TEXT); CREATE VIEW v AS SELECT count(*)::int AS n FROM t;
      INSERT INTO t SELECT i, repeat('x', 100) FROM generate_series(1, 50000) i; CHECKPOINT;`);
    await db.exec('INSERT INTO t VALUES (0, NULL); CHECKPOINT');
    expect((await db.query<{ n: number }>('SELECT n FROM v')).rows[0]?.n).toBe(50001);
    const wal = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_ls_waldir()');
    expect(wal.rows[0]?.n).toBeGreaterThan(1);
    await db.close();
  });

  it('the full template keeps only the WAL from its last checkpoint on as well', async () => {
    const segments = segmentsIn(path);
    expect(segments.length).toBeGreaterThanOrEqual(1);
    expect(segments.length).toBeLessThanOrEqual(2);
  });
});
