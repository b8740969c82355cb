import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DumpedPage } from '../dump.js';
import { startThreadEngine, type ThreadEngine } from './thread-engine.js';

// An engine on its own thread runs its native circuits on the number of threads it is started with
// (EngineWorkerData.workers): its circuit state comes in one part per shard, and its views are the
// same as on one thread.

const PROGRAM = `
CREATE TABLE t (k int NOT NULL, n int NOT NULL);
CREATE VIEW per_k AS SELECT k, count(*) AS c, sum(n) AS s FROM t GROUP BY k;`;

let engine: ThreadEngine;
beforeAll(async () => {
  engine = await startThreadEngine({ workers: 2 }).load(PROGRAM);
}, 120_000);
afterAll(() => engine?.close());

describe('a thread engine with workers: 2', () => {
  it('keeps its circuits in two shards, and its views as one thread would', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ weight: 1, row: { k: i % 10, n: i } }));
    expect((await engine.ingest('t', rows)).accepted).toBe(200);
    const watched = engine.watch('per_k');
    const stepped = await engine.step();
    watched.release();
    const changes = stepped.outputs.get('per_k') ?? [];
    expect(changes).toHaveLength(10);
    // Group k holds n = k, k + 10, …, k + 190: 20 rows summing to 20k + 1900.
    for (const { weight, row } of changes)
      expect([weight, row['c'], row['s']]).toEqual([1, 20, 20 * Number(row['k']) + 1900]);
    const pages: DumpedPage[] = [];
    await engine.dump(async (page) => void pages.push(page));
    const circuit = pages.filter((p) => p.section === 'circuit' && p.name === 'per_k');
    expect(circuit.map((p) => p.circuit?.shards)).toEqual([2, 2]);
    expect(circuit.map((p) => p.circuit?.shard).sort()).toEqual([0, 1]);
  });
});
