import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThreadEngine, type ThreadEngine } from './thread-engine.js';

// A request body crosses to the engine's thread as text and is decoded there by the module the
// thread was started with (the pipeline names src/formats/engine-codec.ts): decode errors and the
// engine's own (a value that does not fit) come back with the request's positions, and the rows
// that fit are in the next step.

const PROGRAM = `
CREATE TABLE t (k int NOT NULL, s text) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW v AS SELECT k, s FROM t;`;
const DECODER = new URL('./codec.fixture.ts', import.meta.url).href;

let engine: ThreadEngine;
beforeAll(async () => {
  engine = await startThreadEngine({ codec: DECODER }).load(PROGRAM);
}, 120_000);
afterAll(() => engine?.close());

describe('ingestBody', () => {
  it('decodes on the engine thread; decode and type errors name the request positions; the rest goes in', async () => {
    const body = ['{"k":1,"s":"a"}', 'not json', '{"k":"x","s":"b"}', '{"k":3}'].join('\n');
    const handed = engine.ingestBody('T', body, {});
    expect(handed.seq).toBeGreaterThan(0);
    const { result, decoded } = await handed.result;
    expect(decoded).toEqual({
      indexes: [0, 2, 3],
      errors: [{ index: 1, message: 'line 1 decoded off the main thread' }],
      records: 4,
    });
    // The engine's errors are against the changes it was given: index 1 is the request's record 2.
    expect(result.accepted).toBe(2);
    expect(result.errors.map((e) => decoded.indexes[e.index])).toEqual([2]);
    expect(engine.bufferedRecords).toBe(2);
    const watched = engine.watch('v');
    const stepped = await engine.step();
    watched.release();
    // The codec wrote the step's json_data on the engine's thread (the fixture marks its own).
    expect(stepped.jsonData?.get('v')).toEqual({ json: '{"fixture":2}', changes: 2 });
    expect(stepped.outputs.get('v')?.map((c) => c.weight)).toEqual([1, 1]);
    const rows = (await engine.snapshot('v')).map((r) => JSON.stringify(r)).sort();
    expect(rows).toEqual(['{"k":1,"s":"a"}', '{"k":3,"s":null}']);
  });

  it('an unknown table is refused before anything crosses', async () => {
    await expect(engine.ingestBody('nope', '{"k":1}', {}).result).rejects.toMatchObject({
      errorCode: 'UnknownInputTable',
    });
  });

  // It starts an engine thread of its own (PGlite's initdb): on a busy 2-core machine that alone took
  // more than vitest's default 5 s.
  it('an engine thread started without a codec says so', { timeout: 120_000 }, async () => {
    const bare = await startThreadEngine().load(PROGRAM);
    try {
      await expect(bare.ingestBody('t', '{"k":1}', {}).result).rejects.toThrow(/without a codec/);
      expect(bare.bufferedRecords).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
