import { describe, expect, it } from 'vitest';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import * as fixture from './host/codec.fixture.js';
import { openEngine } from './open.js';
import type { StatePage } from './state.js';

// A native table with date and timestamp columns (temporal-input.ts): the ISO spellings converted
// in JS, the others by PostgreSQL, record by record, with one result either way; its rows through
// a step, a delete, a checkpoint and a restore, on one thread and on shards (which keep the rows
// of a body they decoded whole).

const PROGRAM = `
  CREATE TABLE ev (k int NOT NULL, d date, ts timestamp(3), tz timestamptz);
  CREATE MATERIALIZED VIEW by_day AS SELECT d, count(*) AS n, max(ts) AS last FROM ev GROUP BY d;
  CREATE MATERIALIZED VIEW late AS SELECT k, tz FROM ev WHERE EXTRACT(hour FROM tz) >= 20;`;
const CODEC_URL = new URL('./host/codec.fixture.ts', import.meta.url).href;

const BODY = [
  { k: 1, d: '2024-02-29', ts: '2024-02-29 23:59:59.9996', tz: '2024-02-29T23:30:00-01:00' },
  { k: 2, d: '2024-02-29', ts: '2024-02-29T08:00:00.5', tz: '2024-03-01 20:15:00Z' },
  // PostgreSQL's own conversions: a zone a timestamp drops, infinity, BC, an offset past midnight.
  { k: 3, d: 'infinity', ts: '2024-03-01 10:00:00+05', tz: '0001-01-01 00:30:00+01' },
  { k: 4, d: '0044-03-15 BC', ts: null, tz: '2024-01-01 21:00:00 UTC' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

async function dumped(engine: Awaited<ReturnType<typeof openEngine>>): Promise<StatePage[]> {
  const pages: StatePage[] = [];
  await engine.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
  return pages;
}

describe('a native table of dates and timestamps', { timeout: 120_000 }, () => {
  for (const workers of [1, 3])
    it(`keeps its values as PostgreSQL prints them, through a delete, a checkpoint and a restore (workers ${workers})`, async () => {
      const options = { workers, codec: CODEC_URL, spill: undefined };
      let engine = await openEngine(PROGRAM, options);
      try {
        expect(engine.resolve('ev', 'table')).toMatchObject({ maintenance: 'native' });
        const { decoded } = await engine.ingestDecoding!('ev', BODY, {}, fixture);
        expect(decoded.errors).toEqual([]);
        await engine.step();
        const rows = [
          { k: 1, d: '2024-02-29', ts: '2024-03-01T00:00:00', tz: '2024-03-01T00:30:00+00:00' },
          { k: 2, d: '2024-02-29', ts: '2024-02-29T08:00:00.5', tz: '2024-03-01T20:15:00+00:00' },
          { k: 3, d: 'infinity', ts: '2024-03-01T10:00:00', tz: '0001-12-31T23:30:00+00:00 BC' },
          { k: 4, d: '0044-03-15 BC', ts: null, tz: '2024-01-01T21:00:00+00:00' },
        ];
        const byK = (a: { k: number }, b: { k: number }) => a.k - b.k;
        expect(((await engine.snapshot('ev')) as { k: number }[]).sort(byK)).toEqual(rows);
        expect(await engine.snapshot('by_day')).toEqual(
          expect.arrayContaining([
            { d: '2024-02-29', n: 2, last: '2024-03-01T00:00:00' },
            { d: 'infinity', n: 1, last: '2024-03-01T10:00:00' },
            { d: '0044-03-15 BC', n: 1, last: null },
          ]),
        );
        expect(((await engine.snapshot('late')) as { k: number }[]).sort(byK)).toEqual([
          { k: 2, tz: '2024-03-01T20:15:00+00:00' },
          { k: 3, tz: '0001-12-31T23:30:00+00:00 BC' },
          { k: 4, tz: '2024-01-01T21:00:00+00:00' },
        ]);
        // A body of ISO spellings only: with shards, each decodes and keeps its part (workers/kept.ts).
        const iso = Array.from({ length: 6 }, (_, i) => ({
          k: 10 + i,
          d: `2023-12-3${i % 2}`,
          ts: `2023-12-31 0${i}:00:00`,
          tz: `2023-12-31T1${4 + i}:00:00-02`,
        }));
        const second = await engine.ingestDecoding!('ev', iso.map((r) => JSON.stringify(r)).join('\n'), {}, fixture);
        expect(second.decoded.errors).toEqual([]);
        await engine.step();
        const isoRows = iso.map((r, i) => ({
          ...r,
          ts: `2023-12-31T0${i}:00:00`,
          tz: `2023-12-31T${16 + i}:00:00+00:00`,
        }));
        const all = [...rows, ...isoRows];
        expect(((await engine.snapshot('ev')) as { k: number }[]).sort(byK)).toEqual(all);
        expect(await engine.snapshot('late')).toHaveLength(5);
        // A delete by value: the row as it was written once, another spelling of the same values.
        await engine.ingest('ev', [
          { weight: -1, row: { k: 2, d: '2024-02-29', ts: '2024-02-29 08:00:00.500', tz: '2024-03-01 21:15:00+01' } },
        ]);
        await engine.step();
        expect(await engine.rowCounts()).toMatchObject({ ev: 9 });
        const pages = await dumped(engine);
        await engine.close();
        engine = await openEngine(PROGRAM, options);
        async function* each(): AsyncGenerator<StatePage> {
          yield* pages;
        }
        await engine.restore({ views: ['by_day', 'late'], pages: each() }, true);
        expect(((await engine.snapshot('ev')) as { k: number }[]).sort(byK)).toEqual(all.filter((r) => r.k !== 2));
        expect(await engine.snapshot('by_day')).toEqual(
          expect.arrayContaining([{ d: '2024-02-29', n: 1, last: '2024-03-01T00:00:00' }]),
        );
        expect(await engine.snapshot('late')).toHaveLength(4);
      } finally {
        await engine.close();
      }
    });
});
