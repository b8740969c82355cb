import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// The seed's two named runtime conditions over real HTTP with the real engine: an undersized query
// pool fails the query alone (ResourcesExhausted), full storage fails the checkpoint (StorageFull);
// the pipeline keeps taking input either way.

let p: PipelineApp;
let base: string;
beforeAll(async () => {
  p = await startPipelineApp(`CREATE TABLE t (id int NOT NULL, s text) WITH ('materialized' = 'true');`, {
    fault_tolerance: {},
    datafusion_memory_mb: 0,
    dev_tweaks: { storage_mb_max: 0 },
  });
  base = p.base;
}, 60_000);
afterAll(() => p?.close());

async function ingest(body: string): Promise<void> {
  const r = await fetch(`${base}/ingress/t?format=json&update_format=raw`, { method: 'POST', body });
  expect(r.status).toBe(200);
  const { token } = (await r.json()) as { token: string };
  await expect
    .poll(async () => (await fetch(`${base}/completion_status?token=${token}`)).status, { interval: 20 })
    .toBe(200);
}

describe('runtime limits of a running pipeline', { timeout: 60_000 }, () => {
  it('datafusion_memory_mb too small: the query fails with ResourcesExhausted, the pipeline goes on', async () => {
    await ingest('{"id":1,"s":"a"}');
    const r = await fetch(`${base}/query?format=json&sql=${encodeURIComponent('SELECT * FROM t')}`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      error_code: 'ResourcesExhausted',
      details: { field: 'runtime_config.datafusion_memory_mb', pool_bytes: 0 },
    });
    // An empty result needs no memory; the pipeline still takes input.
    const empty = await fetch(`${base}/query?format=json&sql=${encodeURIComponent('SELECT * FROM t WHERE id < 0')}`);
    expect(empty.status).toBe(200);
    await ingest('{"id":2,"s":"b"}');
  });

  it('storage_mb_max reached: the checkpoint fails with StorageFull and checkpoint_status says so', async () => {
    const r = await fetch(`${base}/checkpoint`, { method: 'POST' });
    expect(r.status).toBe(507);
    expect(await r.json()).toMatchObject({
      error_code: 'StorageFull',
      details: { field: 'runtime_config.dev_tweaks.storage_mb_max', max_bytes: 0 },
    });
    expect(await (await fetch(`${base}/checkpoint_status`)).json()).toMatchObject({
      success: null,
      failure: { sequence_number: 1 },
    });
    await ingest('{"id":3,"s":"c"}');
  });
});
