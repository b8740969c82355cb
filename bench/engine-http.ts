import { say, sleep } from './common.js';

// bench:engine --via http: the same batches through the pipeline's own HTTP routes (the process's
// app in this process, real loopback HTTP): POST /ingress/{table}?format=json&array=true, then
// /completion_status until the step that applied the batch is done. What a client of the pipeline
// sees, including JSON decoding, the route and the scheduler; no per-step time, so "step" below is
// a batch's POST → complete.

export interface HttpTarget {
  base: string;
}

async function complete(t: HttpTarget, token: string): Promise<void> {
  for (;;) {
    const r = await fetch(`${t.base}/completion_status?token=${encodeURIComponent(token)}`);
    await r.arrayBuffer();
    if (r.status === 200) return;
    if (r.status !== 202) throw new Error(`completion_status answered ${r.status}`);
    await sleep(1);
  }
}

/** An egress stream a view, read and discarded until `signal` aborts; resolves once all are open. */
export async function readEgress(t: HttpTarget, views: string[], signal: AbortSignal): Promise<void> {
  for (const view of views) {
    const r = await fetch(`${t.base}/egress/${view}?format=json`, { method: 'POST', signal });
    if (r.status !== 200 || !r.body) throw new Error(`egress ${view} answered ${r.status}`);
    void r.body.pipeTo(new WritableStream(), { signal }).catch(() => undefined);
  }
}

/** One batch (a JSON array of insert_delete records) in, waited for until a step applied it. */
export async function pushBatch(t: HttpTarget, table: string, json: string): Promise<void> {
  const r = await fetch(`${t.base}/ingress/${table}?format=json&array=true`, { method: 'POST', body: json });
  const body = (await r.json()) as { token?: string };
  if (r.status !== 200 || !body.token) throw new Error(`ingress answered ${r.status}: ${JSON.stringify(body)}`);
  await complete(t, body.token);
}

export async function httpThroughput(
  t: HttpTarget,
  records: number,
  batch: number,
  batchJson: (from: number, n: number) => string,
) {
  const stepMs: number[] = [];
  const t0 = performance.now();
  for (let from = 0; from < records; from += batch) {
    const n = Math.min(batch, records - from);
    const s0 = performance.now();
    await pushBatch(t, 'orders', batchJson(from, n));
    stepMs.push(performance.now() - s0);
    if (stepMs.length % 20 === 0) say(`${from + n} records, last batch ${stepMs.at(-1)!.toFixed(0)} ms`);
  }
  return { seconds: (performance.now() - t0) / 1000, stepMs };
}

/** 1,000 records/s: 100 records every 100 ms, each POST → its batch complete. */
export async function httpLatency(
  t: HttpTarget,
  seconds: number,
  firstId: number,
  batchJson: (from: number, n: number) => string,
) {
  const samples: number[] = [];
  let id = firstId;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const at = performance.now();
    await pushBatch(t, 'orders', batchJson(id, 100));
    samples.push(performance.now() - at);
    id += 100;
    await sleep(Math.max(0, 100 - (performance.now() - at)));
  }
  return samples;
}
