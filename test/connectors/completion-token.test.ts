import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectorPipeline } from '../support/connector-pipeline.js';

// GET tables/{t}/connectors/{c}/completion_token on the pipeline process, with real file connectors:
// the token covers what the input connector has ingested so far, and /completion_status answers
// complete only once a step applied it and every output connector sent its changes.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-token-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const conn = (decls: unknown[]) => `'connectors' = '${JSON.stringify(decls).replaceAll("'", "''")}'`;
const lines = (ids: number[]) => ids.map((id) => JSON.stringify({ insert: { id } })).join('\n') + '\n';

describe('per-connector completion token', () => {
  it('covers what the connector ingested; complete once its outputs were sent (a paused output holds it)', async () => {
    const input = join(dir, 'in.json');
    const output = join(dir, 'out.json');
    await writeFile(input, lines([1, 2, 3]));
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int) WITH ('materialized' = 'true', ${conn([
        { name: 'f', transport: { name: 'file_input', config: { path: input, follow: true } } },
      ])});
       CREATE MATERIALIZED VIEW v WITH (${conn([
         { name: 'out', transport: { name: 'file_output', config: { path: output } } },
       ])}) AS SELECT id FROM t;`,
    );
    const get = (url: string) => p.app.inject({ method: 'GET', url });
    const token = async (table: string, connector: string) => {
      const res = await get(`/tables/${table}/connectors/${connector}/completion_token`);
      expect(res.statusCode).toBe(200);
      return res.json<{ token: string }>().token;
    };
    const status = async (t: string) => {
      const res = await get(`/completion_status?token=${encodeURIComponent(t)}`);
      return `${res.statusCode} ${res.json<{ status: string }>().status}`;
    };
    const sent = async () => (await readFile(output, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    try {
      await expect.poll(async () => (await p.stats()).inputs[0]?.metrics.total_records, { timeout: 20_000 }).toBe(3);
      const first = await token('T', 'f'); // table names are SQL identifiers: T is t
      await expect.poll(() => status(first), { timeout: 20_000 }).toBe('200 complete');
      expect(await sent()).toBe(3);

      // A paused output connector queues the view's changes: the token of the next rows stays in progress.
      expect((await p.app.inject({ method: 'POST', url: '/views/v/connectors/out/pause' })).statusCode).toBe(200);
      await appendFile(input, lines([4, 5]));
      await expect.poll(async () => (await p.stats()).inputs[0]?.metrics.total_records, { timeout: 20_000 }).toBe(5);
      const second = await token('t', 'f');
      await expect.poll(async () => (await p.query('SELECT count(*) AS n FROM v'))[0]?.n, { timeout: 20_000 }).toBe(5);
      expect(await status(second)).toBe('202 inprogress');
      expect(await status(first)).toBe('200 complete');
      expect(await sent()).toBe(3);
      expect((await p.app.inject({ method: 'POST', url: '/views/v/connectors/out/start' })).statusCode).toBe(200);
      await expect.poll(() => status(second), { timeout: 20_000 }).toBe('200 complete');
      expect(await sent()).toBe(5);

      // An unknown connector or table: 404 naming it; output connectors have no token.
      for (const [table, connector] of [
        ['t', 'nope'],
        ['nope', 'f'],
      ] as const) {
        const res = await get(`/tables/${table}/connectors/${connector}/completion_token`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({
          error_code: 'UnknownConnector',
          message: `no input connector ${connector} of table ${table}`,
          details: { table, connector },
        });
      }
      expect((await get('/views/v/connectors/out/completion_token')).statusCode).toBe(404);
    } finally {
      await p.close();
    }
  });
});
