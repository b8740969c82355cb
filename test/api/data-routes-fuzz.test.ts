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
// body naming what is wrong, never a 500; and an idle egress stream gets its keep-alive line.

let dir: string;
let ctl: PipelineController;
let app: FastifyInstance;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-data-fuzz-'));
  ctl = await programController(
    dir,
    `CREATE TABLE t (id int NOT NULL, s text, d date) WITH ('materialized' = 'true');
     CREATE MATERIALIZED VIEW v AS SELECT s, count(*) AS n FROM t GROUP BY s;`,
  );
  await ctl.load();
  app = buildPipelineApp(ctl, silentLogger());
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

const record = fc.record({
  id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null)),
  s: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)),
  d: fc.oneof(fc.constant('2024-01-02'), fc.string({ maxLength: 6 })),
});
const body = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(record, { maxLength: 4 }).map((rs) => JSON.stringify(rs)),
  fc.array(record, { maxLength: 4 }).map((rs) => rs.map((r) => JSON.stringify({ insert: r })).join('\n')),
  fc.array(record, { maxLength: 4 }).map((rs) => rs.map((r) => `${r.id},${r.s},${r.d}`).join('\n')),
);

describe('data routes under random input', { timeout: 120_000 }, () => {
  it('ingress and query never answer 5xx; a 400 names a field or the records', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('t', 'T', '"t"', 'nope', 'v'),
        param('format', ['json', 'csv']),
        param('update_format', ['insert_delete', 'raw', 'weighted']),
        param('array', ['true', 'false']),
        body,
        async (table, format, update, array, payload) => {
          const qs = [format, update, array, 'force=true'].filter(Boolean).join('&');
          const res = await app.inject({ method: 'POST', url: `/ingress/${encodeURIComponent(table)}?${qs}`, payload });
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
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it('an idle egress stream gets an empty keep-alive line after 3 s', async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${base}/egress/v`, { method: 'POST' });
    const reader = res.body!.getReader();
    const t0 = Date.now();
    let text = new TextDecoder().decode((await reader.read()).value);
    while (!text.endsWith('}\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    await reader.cancel();
  });
});
