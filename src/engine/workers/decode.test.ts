import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fixture from '../host/codec.fixture.js';
import type { EngineCodec } from '../host/hosted.js';
import { openEngine } from '../open.js';
import type { ProgramEngine } from '../engine.js';
import type { Change } from '../types.js';

// Ingress decoding spread over the workers (ProgramEngine.ingestDecoding): with shard threads, a
// body for a native table is cut into a part per thread and each part is decoded and converted
// where it lands, this thread's among them; the body's answer, its errors and the views are what
// decoding it whole on the engine's thread gives. Which way a body went shows in the codec the
// engine is handed: its decodeBody runs only for a body decoded whole (the shards decode with the
// module they imported by its address).

const CODEC_URL = new URL('../host/codec.fixture.ts', import.meta.url).href;
const PROGRAM = `
CREATE TABLE t (k int NOT NULL, s text);
CREATE VIEW per_k AS SELECT k, count(*) AS n, max(s) AS top FROM t GROUP BY k;
CREATE TABLE m (k int CHECK (k >= 0));
CREATE VIEW m_k AS SELECT k FROM m WHERE k > 0;`;

/** The fixture codec, counting the bodies it decoded whole. */
function spyCodec(): EngineCodec & { whole: number } {
  const spy = {
    whole: 0,
    decodeBody: (text: string, options: unknown, columns: Parameters<EngineCodec['decodeBody']>[2]) => {
      spy.whole++;
      return fixture.decodeBody(text, options, columns);
    },
    splitBody: fixture.splitBody,
    changesTexts: fixture.changesTexts,
  };
  return spy;
}

const lines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ k: (from + i) % 7, s: `s${from + i}` }));

/** A view's value: its changes so far, summed. */
const sum = (changes: Change[]) => {
  const z = new Map<string, number>();
  for (const c of changes) z.set(JSON.stringify(c.row), (z.get(JSON.stringify(c.row)) ?? 0) + c.weight);
  return [...z].filter(([, w]) => w !== 0).sort();
};

describe('a body decoded on the shards', { timeout: 120_000 }, () => {
  let sharded: ProgramEngine;
  let single: ProgramEngine;
  beforeAll(async () => {
    [sharded, single] = await Promise.all([
      openEngine(PROGRAM, { workers: 3, codec: CODEC_URL }),
      openEngine(PROGRAM, { workers: 1, codec: CODEC_URL }),
    ]);
    for (const e of [sharded, single]) e.watch('per_k');
  }, 120_000);
  afterAll(async () => {
    await sharded?.close();
    await single?.close();
  });

  /** The same body into both engines: the answers, and whether the sharded one decoded it whole. */
  async function both(table: string, body: string) {
    const [codec, other] = [spyCodec(), spyCodec()];
    const got = await sharded.ingestDecoding(table, body, {}, codec);
    const want = await single.ingestDecoding(table, body, {}, other);
    expect(other.whole).toBe(1);
    const { seq: _a, ...gotResult } = got.result;
    const { seq: _b, ...wantResult } = want.result;
    expect({ ...got, result: gotResult }).toEqual({ ...want, result: wantResult });
    return { got, whole: codec.whole };
  }

  it('is cut into a part per thread, none decoded whole, and the views are the same', async () => {
    const { got, whole } = await both('t', lines(30).join('\n'));
    expect(whole).toBe(0);
    expect(got.result.accepted).toBe(30);
    expect(got.decoded).toEqual({ indexes: Array.from({ length: 30 }, (_, i) => i), errors: [], records: 30 });
    const [a, b] = await Promise.all([sharded.step(), single.step()]);
    expect(sum(a.outputs.get('per_k')!)).toEqual(sum(b.outputs.get('per_k')!));
    expect(sum(a.outputs.get('per_k')!)).toHaveLength(7);
  });

  it('is decoded whole when a part has a record in error, or a value for PostgreSQL: answers and views unchanged', async () => {
    const bad = [...lines(10, 100), 'not json', ...lines(10, 110)].join('\n');
    const errors = await both('t', bad);
    expect(errors.whole).toBe(1);
    expect(errors.got.decoded.errors).toEqual([{ index: 10, message: 'line 10 decoded on the main thread' }]);
    // "7" for an int: the JS conversion leaves it to PostgreSQL's, on the engine's thread.
    const text = [...lines(10, 200), JSON.stringify({ k: '7', s: 'pg' }), ...lines(10, 210)].join('\n');
    const converted = await both('t', text);
    expect(converted.whole).toBe(1);
    expect(converted.got.result.accepted).toBe(21);
    const [a, b] = await Promise.all([sharded.step(), single.step()]);
    expect(sum(a.outputs.get('per_k')!)).toEqual(sum(b.outputs.get('per_k')!));
    expect(sum(a.outputs.get('per_k')!).map(([row]) => JSON.parse(row).k)).toContain(7);
  });

  it('is decoded whole for a table PGlite holds', async () => {
    const { whole, got } = await both('m', lines(12).join('\n'));
    expect(whole).toBe(1);
    expect(got.result.accepted).toBe(12);
  });
});
