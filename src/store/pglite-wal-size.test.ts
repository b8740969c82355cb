import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPglite } from './pglite-database.js';

const settings = `SELECT name, setting::bigint * CASE unit WHEN 'MB' THEN 1048576 ELSE 1 END AS bytes
  FROM pg_settings WHERE name IN ('wal_segment_size', 'min_wal_size', 'max_wal_size') ORDER BY name`;
const MiB = 1024 * 1024;

async function walBytes(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'pg_wal');
  let total = 0;
  for (const name of await readdir(dir)) if (/^[0-9A-F]{24}$/.test(name)) total += (await stat(join(dir, name))).size;
  return total;
}

describe('the embedded record database keeps little WAL', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-wal-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it(
    'a new data dir: 1 MiB segments, 4 MiB recycled; WAL stays small across checkpoints',
    { timeout: 60_000 },
    async () => {
      const db = await openPglite(join(dir, 'pgdata'));
      try {
        expect(await db.query(settings)).toEqual([
          { name: 'max_wal_size', bytes: 64 * MiB },
          { name: 'min_wal_size', bytes: 4 * MiB },
          { name: 'wal_segment_size', bytes: MiB },
        ]);
        await db.exec('CREATE TABLE t (id int PRIMARY KEY, body text)');
        // 30 rounds of ~1 MiB of WAL each, a CHECKPOINT after each (as the compaction loop does).
        for (let round = 0; round < 30; round++) {
          await db.exec(`INSERT INTO t SELECT g, repeat('x', 900) FROM generate_series(1, 1000) g
                       ON CONFLICT (id) DO UPDATE SET body = excluded.body`);
          await db.exec('CHECKPOINT');
        }
      } finally {
        await db.close();
      }
      // Written: ~30 MiB. Kept: the segments since the last checkpoint and a few recycled ones.
      const kept = await walBytes(join(dir, 'pgdata'));
      expect(kept).toBeLessThanOrEqual(8 * MiB);
    },
  );

  it(
    'an existing data dir keeps its 16 MiB segments, with two of them recycled at most',
    { timeout: 30_000 },
    async () => {
      const old = await PGlite.create(join(dir, 'pgdata'));
      await old.close();
      const db = await openPglite(join(dir, 'pgdata'));
      try {
        expect(await db.query(settings)).toEqual([
          { name: 'max_wal_size', bytes: 64 * MiB },
          { name: 'min_wal_size', bytes: 32 * MiB },
          { name: 'wal_segment_size', bytes: 16 * MiB },
        ]);
      } finally {
        await db.close();
      }
    },
  );
});
