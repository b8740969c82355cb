import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { openDatabase } from '../../src/store/open.js';
import { selectPipelineById, applyIfUnchanged } from '../../src/store/runner/queries.js';
import { compact, FULL_FLOOR_BYTES, TABLES_SQL } from '../../src/store/maintenance/compact.js';

// The runner's own write path on the embedded database, as a pipeline with fault tolerance drove it
// in issue 13: status details big enough to live in TOAST (random ids do not compress), rewritten
// thousands of times. Old TOAST chunks are only reclaimed by VACUUM.
const details = (n: number) => ({
  checkpoints: Array.from({ length: 120 }, () => ({ id: randomUUID(), created_at: new Date(n).toISOString() })),
});

describe('compaction of the embedded database', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-compact-'));
    db = (await openDatabase(undefined, dir)).db;
  });
  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const pipelineBytes = async () =>
    (await db.query<{ name: string; total_bytes: number }>(TABLES_SQL)).find((t) => t.name === 'pipeline')
      ?.total_bytes ?? NaN;

  it('brings the pipeline table back under a bound after thousands of runner writes', async () => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO pipeline (id, name, platform_version, program_code, runtime_config, program_config)
       VALUES ($1, 'p', 'v', '', '{}'::jsonb, '{}'::jsonb)`,
      [id],
    );
    const initial = (await selectPipelineById(db, id))?.refresh_version ?? NaN;
    for (let n = 0; n < 3000; n++) {
      const row = await selectPipelineById(db, id);
      if (!row) throw new Error('row vanished');
      const written = await applyIfUnchanged(db, row, {
        set: { storage_status_details: details(n) },
        stamp: ['deployment_details_written_at'],
        bump: ['refresh_version'],
      });
      expect(written).toBeDefined();
    }
    const grown = await pipelineBytes();
    const report = await compact(db);
    const after = await pipelineBytes();
    // The bloat is real without compaction, and gone after one round.
    expect(grown).toBeGreaterThan(2 * FULL_FLOOR_BYTES);
    expect(report.rewritten).toContain('pipeline');
    expect(after).toBeLessThanOrEqual(FULL_FLOOR_BYTES / 4);
    const row = await selectPipelineById(db, id);
    expect(row?.refresh_version).toBe(initial + 3000);
  });
});
