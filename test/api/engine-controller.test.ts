import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from '../../src/engine/types.js';
import type { JsonValue } from '../../src/model/json.js';
import { programController } from '../support/pipeline-controller.js';

// The engine inside the pipeline controller (in process, real PGlite, real artifact files): the
// data engine appears once the pipeline has started, and the scheduler runs its steps as the
// runtime_config says.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-engine-ctl-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const controller = (program_code: string, runtime_config: Record<string, JsonValue>) =>
  programController(dir, program_code, runtime_config);

describe('engine in the pipeline controller', { timeout: 60_000 }, () => {
  it('steps buffered input once min_batch_size_records arrived or the delay passed', async () => {
    const ctl = await controller('CREATE TABLE t (x int); CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t;', {
      min_batch_size_records: 5,
      max_buffering_delay_usecs: 300_000,
    });
    expect(ctl.dataEngine).toBeUndefined();
    await ctl.load();
    try {
      const engine = ctl.dataEngine!;
      const steps: StepResult[] = [];
      engine.onStep((r) => void steps.push(r));
      engine.watch('c');
      const rows = (n: number) => Array.from({ length: n }, (_, x) => ({ weight: 1, row: { x } }));
      const first = await engine.ingest('t', rows(2));
      expect(engine.bufferedRecords).toBe(2);
      await expect.poll(() => steps.length, { timeout: 5000, interval: 20 }).toBe(1);
      expect(steps[0]).toMatchObject({ inputRecords: 2, appliedSeq: first.seq });
      expect(steps[0]?.outputs.get('c')).toEqual(
        expect.arrayContaining([
          { weight: -1, row: { n: 0 } },
          { weight: 1, row: { n: 2 } },
        ]),
      );
      await engine.ingest('t', rows(5));
      await expect.poll(() => steps.length, { timeout: 5000, interval: 20 }).toBe(2);
      expect(steps[1]?.inputRecords).toBe(5);
      expect((await engine.query('SELECT n FROM c')).rows).toEqual([{ n: 7 }]);
    } finally {
      await ctl.close();
    }
  });

  it('a NOW() program steps on clock ticks without input', async () => {
    const ctl = await controller('CREATE TABLE t (x int); CREATE VIEW late AS SELECT x, NOW() AS at FROM t;', {
      clock_resolution_usecs: 50_000,
    });
    await ctl.load();
    try {
      const engine = ctl.dataEngine!;
      await engine.ingest('t', [{ weight: 1, row: { x: 1 } }]);
      const changed: string[] = [];
      engine.watch('late');
      engine.onStep((r) => {
        for (const c of r.outputs.get('late') ?? []) if (c.weight > 0) changed.push(String(c.row['at']));
      });
      await expect.poll(() => new Set(changed).size, { timeout: 5000, interval: 20 }).toBeGreaterThanOrEqual(2);
    } finally {
      await ctl.close();
    }
  });
});
