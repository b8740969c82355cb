import { expect, it } from 'vitest';
import * as fixture from '../host/codec.fixture.js';
import { openEngine } from '../open.js';

// KNOWN BUG, not fixed yet (issue 28, found 2026-12-07 by the native property test, seed
// -413813711, on d314087 and later): with shard threads, two bodies for one table before a step,
// the second of weight 2 (the `weighted` update format can send that), leave that row on two
// shards, each with weight 2. The table's count says 4 copies, its rows read back say 6, so a
// checkpoint writes the row twice too often and a restart doubles it. `it.fails` pins the bug so
// that this file turns red once it is fixed: then make it a plain `it`.

const CODEC_URL = new URL('../host/codec.fixture.ts', import.meta.url).href;

it.fails('KNOWN BUG: a weight-2 row kept on shards is read back from two of them', { timeout: 60_000 }, async () => {
  const engine = await openEngine(`CREATE TABLE t1 (k int, v int); CREATE VIEW v0 AS SELECT * FROM t1 WHERE k > 0;`, {
    workers: 3,
    codec: CODEC_URL,
  });
  try {
    await engine.ingestDecoding!('t1', '{"k":0,"v":339}\n{"k":0,"v":313}', { weight: 1 }, fixture);
    await engine.ingestDecoding!('t1', '{"k":1,"v":0}', { weight: 2 }, fixture);
    await engine.step();
    expect(await engine.rowCounts()).toEqual({ t1: 4 });
    expect(await engine.snapshot('t1')).toHaveLength(4);
  } finally {
    await engine.close();
  }
});
