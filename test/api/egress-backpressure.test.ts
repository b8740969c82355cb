import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// An egress reader that does not read, over real HTTP with the real engine: with backpressure=false
// (the default) the pipeline goes on and drops chunks past its bound, counting them; with
// backpressure=true its steps wait for the reader and nothing is lost.

let p: PipelineApp;
let base: string;
beforeAll(async () => {
  p = await startPipelineApp('CREATE TABLE t (id int NOT NULL, s text); CREATE VIEW v AS SELECT id, s FROM t;');
  base = p.base;
}, 60_000);
afterAll(() => p?.close());

const BATCHES = 30;
const ROWS = 100;
const FILLER = 'x'.repeat(10_000);
/** Batch b: ids b*ROWS … b*ROWS+ROWS-1, ~1 MB; 30 MB in all, well past the 8 MiB bound plus socket buffers. */
const batch = (b: number) => JSON.stringify(Array.from({ length: ROWS }, (_, i) => ({ id: b * ROWS + i, s: FILLER })));

async function push(b: number): Promise<string> {
  const r = await fetch(`${base}/ingress/t?format=json&update_format=raw&array=true`, {
    method: 'POST',
    body: batch(b),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { token: string }).token;
}
const completion = async (token: string) =>
  (await fetch(`${base}/completion_status?token=${encodeURIComponent(token)}`)).status;
const outputStats = async () =>
  ((await (await fetch(`${base}/stats`)).json()) as { outputs: Array<{ metrics: Record<string, number> }> }).outputs;

/** The ids a chunk line inserts (an empty keep-alive line inserts none). */
const insertedIds = (line: string): number[] =>
  line
    ? ((JSON.parse(line) as { json_data?: Array<{ insert?: { id: number } }> }).json_data ?? []).flatMap((c) =>
        c.insert ? [c.insert.id] : [],
      )
    : [];

describe('egress with a reader that does not read', { timeout: 120_000 }, () => {
  it('backpressure=false: steps go on, chunks past the bound are dropped and counted', async () => {
    const egress = await fetch(`${base}/egress/v?format=json`, { method: 'POST' });
    const reader = egress.body!.getReader();
    try {
      for (let b = 0; b < BATCHES; b++) {
        const token = await push(b);
        await expect.poll(() => completion(token), { timeout: 30_000, interval: 20 }).toBe(200);
      }
      const [out] = await outputStats();
      expect(out?.metrics['dropped_chunks']).toBeGreaterThan(0);
      expect(out?.metrics['transmitted_records']).toBeLessThan(BATCHES * ROWS);
    } finally {
      await reader.cancel();
    }
  });

  it('backpressure=true: steps wait for the reader, and every change arrives', async () => {
    const egress = await fetch(`${base}/egress/v?format=json&backpressure=true`, { method: 'POST' });
    const reader = egress.body!.getReader();
    try {
      // Pushed one after another in the background: a step waiting for the reader holds the next
      // ingress too (the engine runs one thing at a time), so the reader's pace reaches the writer.
      const tokens: string[] = [];
      const pushing = (async () => {
        for (let b = BATCHES; b < 2 * BATCHES; b++) tokens.push(await push(b));
      })();
      let pushed = false;
      void pushing.then(() => (pushed = true));
      await new Promise((r) => setTimeout(r, 1_000));
      // Nothing is read yet, so nothing can count as sent: either the writer is held (a step waiting
      // for the reader holds the next ingress), or, when every ingress went in before a step could
      // start (the engine's own thread takes input while the main thread is free), the last one's
      // completion waits for the reader. Which of the two depends on the machine's timing.
      if (pushed) expect(await completion(tokens.at(-1)!)).toBe(202);
      let text = '';
      const seen = new Set<number>();
      const decoder = new TextDecoder();
      while (seen.size < BATCHES * ROWS) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const lines = text.split('\n');
        text = lines.pop()!;
        for (const id of lines.flatMap(insertedIds)) seen.add(id);
      }
      await pushing;
      expect(seen.size).toBe(BATCHES * ROWS);
      expect(Math.min(...seen)).toBe(BATCHES * ROWS);
      await expect.poll(() => completion(tokens.at(-1)!), { timeout: 30_000, interval: 20 }).toBe(200);
      const out = (await outputStats()).find((o) => o.metrics['transmitted_records']! >= BATCHES * ROWS);
      expect(out?.metrics['dropped_chunks']).toBe(0);
    } finally {
      await reader.cancel();
    }
  });
});
