import { openEngine } from '../src/engine/open.js';
import type { EngineCodec } from '../src/engine/host/hosted.js';
import { ENGINE_CODEC_URL } from '../src/formats/engine-codec.js';
import type { BodyFormat } from '../src/model/data-queries.js';
import { benchFlags, integerFlag, say, uptime } from './common.js';
import { pathFigures, pathLine } from './engine-paths.js';

// `npm run bench:events -- [--records 200000] [--batch 10000]`
// A stream of events as most programs have one: a timestamp, a timestamptz, a kind, an amount; and
// views of what reports do with it: a filter on a date range, an hourly GROUP BY with a FILTER and a
// rounded average, casts and interval arithmetic, text functions, a UNION. Until 2026-12-08 none of
// it was native (a date/time column kept the table in PGlite; every view fell back). The same
// batches, as JSON bodies through the wire codec (ingestDecoding, as a pipeline's ingress), go
// through the engine with the native path on and off (the PGlite rules) in one run, so the ratio
// is measured side by side; the view contents of both runs must be equal.

const USAGE = `usage: npm run bench:events -- [--records N] [--batch N] [--only native|pglite]`;
const values = benchFlags(USAGE, {
  records: { type: 'string', default: '200000' },
  batch: { type: 'string', default: '10000' },
  only: { type: 'string', default: '' },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);

const PROGRAM = `
  CREATE TABLE events (id bigint NOT NULL, uid int NOT NULL, kind text NOT NULL, amount numeric(10,2), ts timestamp NOT NULL, tz timestamptz);
  CREATE MATERIALIZED VIEW hourly AS
    SELECT date_trunc('hour', ts) AS h, kind, count(*) AS n, count(*) FILTER (WHERE amount > 50) AS big,
           round(avg(amount), 2) AS mean, max(amount) AS top
    FROM events WHERE ts >= '2024-03-02' GROUP BY date_trunc('hour', ts), kind;
  CREATE VIEW due AS
    SELECT id, split_part(kind, '-', 1) AS family, ts + interval '1 day 02:00:00' AS due_at, tz::date AS day
    FROM events WHERE ts::date = '2024-03-05' AND EXTRACT(hour FROM tz) >= 20;
  CREATE MATERIALIZED VIEW noted AS
    SELECT uid FROM events WHERE amount > 99 UNION SELECT uid FROM events WHERE kind = 'refund-1';
  CREATE MATERIALIZED VIEW weekly AS
    SELECT date_trunc('week', tz) AS w, uid % 10 AS g, sum(amount) AS total FROM events GROUP BY 1, 2;`;
const VIEWS = ['hourly', 'due', 'noted', 'weekly'];
const KINDS = ['sale-1', 'sale-2', 'refund-1', 'view-1'];
const FORMAT: BodyFormat = { format: 'json', update_format: 'insert_delete', array: true, json_flavor: 'default' };
const pad = (n: number) => String(n).padStart(2, '0');

/** Events from..from+n as one JSON body: a second apart, from 2024-03-01, with an offset on tz. */
function body(from: number, n: number): string {
  const records = new Array<string>(n);
  for (let k = 0; k < n; k++) {
    const i = from + k;
    const s = i * 7;
    const day = 1 + (Math.floor(s / 86_400) % 28);
    const clock = `${pad(Math.floor(s / 3600) % 24)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
    const cents = (i * 7919) % 10_000;
    records[k] =
      `{"insert":{"id":${i},"uid":${i % 1000},"kind":"${KINDS[i % 4]}","amount":${Math.floor(cents / 100)}.${pad(cents % 100)},` +
      `"ts":"2024-03-${pad(day)} ${clock}","tz":"2024-03-${pad(day)}T${clock}+02:00"}}`;
  }
  return `[${records.join(',')}]`;
}

const CODEC = (await import(ENGINE_CODEC_URL)) as EngineCodec;

async function run(native: boolean) {
  const kept: string[] = [];
  const engine = await openEngine(PROGRAM, { native, onMaintenance: (v, m) => kept.push(`${v}: ${m}`) });
  for (const v of VIEWS) engine.watch(v);
  const steps: number[] = [];
  const t0 = performance.now();
  for (let from = 0; from < RECORDS; from += BATCH) {
    const { decoded, result } = await engine.ingestDecoding!(
      'events',
      body(from, Math.min(BATCH, RECORDS - from)),
      FORMAT,
      CODEC,
    );
    if (decoded.errors.length + result.errors.length > 0)
      throw new Error(`rejected: ${JSON.stringify(decoded.errors.slice(0, 2))}`);
    const s0 = performance.now();
    await engine.step();
    steps.push(performance.now() - s0);
  }
  const seconds = (performance.now() - t0) / 1000;
  const contents = await Promise.all(
    ['hourly', 'noted', 'weekly'].map(async (v) => (await engine.snapshot(v)).map((r) => JSON.stringify(r)).sort()),
  );
  await engine.close();
  return { ...pathFigures(native, kept, RECORDS, seconds, steps), contents };
}

say(`machine: ${uptime()}`);
if (values.only) {
  // One path alone (a profile of it): no comparison.
  const r = await run(values.only === 'native');
  process.stdout.write(pathLine(r));
  process.exit(0);
}
const results = [await run(true), await run(false)];
for (const r of results) process.stdout.write(pathLine(r));
if (JSON.stringify(results[0]!.contents) !== JSON.stringify(results[1]!.contents))
  throw new Error('the native path and the PGlite rules hold different view contents');
process.stdout.write(
  `views equal on both paths; native / PGlite rules: ${(results[0]!.recordsPerS / results[1]!.recordsPerS).toFixed(2)}×\n`,
);
