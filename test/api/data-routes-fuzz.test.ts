import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineController } from '../../src/pipeline/controller.js';
import { buildPipelineApp } from '../../src/pipeline/http.js';
import { programController } from '../support/pipeline-controller.js';
import { silentLogger } from '../support/silent-logger.js';

// Random requests to the data routes (real engine behind them): every answer is 200/202 or a 4xx
// body naming what is wrong, never a 500; and an idle egress stream gets its keep-alive line. The app
// requires a token as a deployed pipeline does: a request without it (or with another) is a 401 and
// changes nothing. Afterwards (issue 27: weights past the bound, values nested too deep, NaN and
// infinities) the pipeline still answers and its GROUP BY view equals its query from scratch.

const TOKEN = 'f'.repeat(64);
const AUTH = { authorization: `Bearer ${TOKEN}` };
const VIEW_QUERY = 'SELECT s, count(*) AS n, sum(x) AS total, avg(x) AS mean FROM t GROUP BY s';

let dir: string;
let ctl: PipelineController;
let app: FastifyInstance;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-data-fuzz-'));
  ctl = await programController(
    dir,
    `CREATE TABLE t (id int NOT NULL, s text, d date, x numeric) WITH ('materialized' = 'true');
     CREATE MATERIALIZED VIEW v AS ${VIEW_QUERY};`,
  );
  await ctl.load();
  app = buildPipelineApp(ctl, silentLogger(), TOKEN);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await ctl?.close();
  await rm(dir, { recursive: true, force: true });
});

const param = (name: string, values: string[]) =>
  fc.option(
    fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 6 })).map((v) => `${name}=${encodeURIComponent(v)}`),
  );

/** A value nested `depth` levels (arrays or objects): past the bound at 64, far past it at 100,000. */
const nested = fc
  .tuple(fc.constantFrom(1, 63, 65, 100_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );
const record = fc.record({
  id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null)),
  s: fc.oneof(fc.constantFrom('a', 'b'), fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)),
  d: fc.oneof(fc.constant('2024-01-02'), fc.string({ maxLength: 6 })),
  x: fc.oneof(fc.constantFrom('NaN', 'Infinity', '-Infinity', '1.5', 'nan'), fc.integer(), fc.constant(null)),
});
const weight = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 100_001, 1e300, 0.5),
);
/** A JSON line with a nested value spliced in where a column's value goes. */
const deepLine = fc
  .tuple(record, nested)
  .map(([r, deep]) => JSON.stringify({ insert: { ...r, s: '@' } }).replace('"@"', deep));
const body = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(record, { maxLength: 4 }).map((rs) => JSON.stringify(rs)),
  fc.array(record, { maxLength: 4 }).map((rs) => rs.map((r) => JSON.stringify({ insert: r })).join('\n')),
  fc
    .array(fc.tuple(record, fc.boolean()), { maxLength: 4 })
    .map((rs) => rs.map(([r, del]) => JSON.stringify(del ? { delete: r } : { insert: r })).join('\n')),
  fc
    .array(fc.tuple(record, weight), { maxLength: 4 })
    .map((rs) => rs.map(([data, w]) => JSON.stringify({ weight: w, data })).join('\n')),
  fc
    .array(
      fc.oneof(
        deepLine,
        record.map((r) => JSON.stringify({ insert: r })),
      ),
      { maxLength: 3 },
    )
    .map((ls) => ls.join('\n')),
  fc.array(record, { maxLength: 4 }).map((rs) => rs.map((r) => `${r.id},${r.s},${r.d},${r.x}`).join('\n')),
);
/** The token, none, or another: only the first gets past the pipeline's door. */
const header = fc.constantFrom<Record<string, string>>(AUTH, AUTH, AUTH, {}, { authorization: 'Bearer x' });

describe('data routes under random input', { timeout: 120_000 }, () => {
  it('ingress and query never answer 5xx; a 400 names a field or the records', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('t', 'T', '"t"', 'nope', 'v'),
        param('format', ['json', 'csv']),
        param('update_format', ['insert_delete', 'raw', 'weighted']),
        param('array', ['true', 'false']),
        body,
        header,
        async (table, format, update, array, payload, headers) => {
          const qs = [format, update, array, 'force=true'].filter(Boolean).join('&');
          const url = `/ingress/${encodeURIComponent(table)}?${qs}`;
          const res = await app.inject({ method: 'POST', url, payload, headers });
          if (headers !== AUTH) {
            expect(res.statusCode).toBe(401);
            return;
          }
          expect([200, 400]).toContain(res.statusCode);
          if (res.statusCode === 400) {
            const err = res.json<{ error_code: string; message: string }>();
            expect(err.message.length).toBeGreaterThan(0);
            expect(['ParseErrors', 'UnknownInputTable', 'InvalidIngressParameters']).toContain(err.error_code);
          }
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), param('format', ['json', 'text', 'hash']), async (sql, format) => {
        const url = `/query?sql=${encodeURIComponent(sql)}${format ? `&${format}` : ''}`;
        const res = await app.inject({ method: 'GET', url, headers: AUTH });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it('afterwards the pipeline answers and the GROUP BY view equals its query from scratch', async () => {
    // Still answering, after every request above.
    expect((await app.inject({ method: 'GET', url: '/status', headers: AUTH })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/stats', headers: AUTH })).statusCode).toBe(200);
    const rows = async (sql: string) => {
      const res = await app.inject({
        method: 'GET',
        url: `/query?format=json&sql=${encodeURIComponent(sql)}`,
        headers: AUTH,
      });
      expect(res.statusCode).toBe(200);
      return res.body.trim().split('\n').filter(Boolean).sort();
    };
    await expect
      .poll(async () => JSON.stringify(await rows('SELECT * FROM v')) === JSON.stringify(await rows(VIEW_QUERY)), {
        timeout: 30_000,
      })
      .toBe(true);
  });

  it('an idle egress stream gets an empty keep-alive line after 3 s', async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${base}/egress/v`, { method: 'POST', headers: AUTH });
    const reader = res.body!.getReader();
    const t0 = Date.now();
    let text = new TextDecoder().decode((await reader.read()).value);
    while (!text.endsWith('}\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    await reader.cancel();
  });
});
