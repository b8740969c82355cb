import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointDue } from '../../src/pipeline/checkpointing.js';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// An automatic checkpoint is written only when it would hold something the last one does not: an
// idle pipeline used to rewrite its whole state every checkpoint_interval_secs for nothing.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('checkpointDue', () => {
  it('is due with no checkpoint yet, after input or a step, and after NOW() moves only when it is read back', () => {
    const at = { version: 7, nowMs: 1_000 };
    expect(checkpointDue(undefined, at, false)).toBe(true);
    expect(checkpointDue(at, { version: 7, nowMs: 9_000 }, false)).toBe(false);
    expect(checkpointDue(at, { version: 8, nowMs: 1_000 }, false)).toBe(true);
    expect(checkpointDue(at, { version: 7, nowMs: 9_000 }, true)).toBe(true);
    expect(checkpointDue(at, { version: 7, nowMs: 1_000 }, true)).toBe(false);
  });
});

describe('automatic checkpoints of an idle pipeline', { timeout: 60_000 }, () => {
  let p: PipelineApp;
  beforeAll(async () => {
    p = await startPipelineApp(`CREATE TABLE t (id int) WITH ('materialized' = 'true');`, {
      fault_tolerance: { checkpoint_interval_secs: 1 },
    });
  }, 60_000);
  afterAll(() => p?.close());

  const checkpoints = async () =>
    (
      (await (await fetch(`${p.base}/status`)).json()) as { storage_status_details: { checkpoints: { id: string }[] } }
    ).storage_status_details.checkpoints.map((c) => c.id);

  it('writes one, then none while nothing changes, then one after input', async () => {
    await expect.poll(checkpoints, { timeout: 10_000 }).toHaveLength(1);
    const first = await checkpoints();
    await sleep(3_500); // three intervals and more
    expect(await checkpoints()).toEqual(first);

    const r = await fetch(`${p.base}/ingress/t?format=json&update_format=raw`, { method: 'POST', body: '{"id":1}' });
    expect(r.status).toBe(200);
    await expect.poll(checkpoints, { timeout: 10_000 }).toHaveLength(2);
    const second = await checkpoints();
    await sleep(3_500);
    expect(await checkpoints()).toEqual(second);
  });
});
