import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectorPipeline } from '../support/connector-pipeline.js';

// file_input (+follow), file_output, url_input and datagen in a pipeline compiled by the real
// compiler: their records reach the table and the view's changes reach the file; bad records and
// failing transports are counted, never stop the pipeline.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-connectors-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const conn = (decls: unknown[]) => `'connectors' = '${JSON.stringify(decls).replaceAll("'", "''")}'`;

describe('file, url and datagen connectors', () => {
  it('file_input → table → view → file_output; bad records counted and skipped; follow takes appends', async () => {
    const input = join(dir, 'in.json');
    const output = join(dir, 'out.json');
    await writeFile(
      input,
      // Written with a byte order mark, as some editors save: it is not part of the first record.
      '\uFEFF{"insert":{"id":1,"v":10}}\n{"insert":{"id":"x","v":1}}\nnot json\n{"insert":{"id":2,"v":200}}\n',
    );
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int NOT NULL, v int) WITH ('materialized' = 'true', ${conn([
        {
          name: 'f',
          transport: { name: 'file_input', config: { path: input, follow: true } },
          format: { name: 'json' },
        },
      ])});
       CREATE MATERIALIZED VIEW big WITH (${conn([
         { name: 'out', transport: { name: 'file_output', config: { path: output } }, format: { name: 'json' } },
       ])}) AS SELECT id, v FROM t WHERE v > 100;`,
    );
    try {
      await expect.poll(async () => (await p.stats()).inputs[0]?.metrics.total_records, { timeout: 20_000 }).toBe(2);
      const s = await p.stats();
      expect(s.inputs[0]).toMatchObject({
        endpoint_name: 't.f',
        metrics: { num_parse_errors: 2, num_transport_errors: 0, end_of_input: false },
      });
      expect(s.connector_stats.num_errors).toBe(2);
      expect((await p.ctl.extendedStatus()).runtime_status_details.connector_stats?.num_errors).toBe(2);
      await appendFile(input, '{"insert":{"id":3,"v":300}}\n{"delete":{"id":2,"v":200}}\n');
      await expect
        .poll(async () => (await readFile(output, 'utf8').catch(() => '')).trim().split('\n').length, {
          timeout: 20_000,
        })
        .toBe(3);
      const lines = (await readFile(output, 'utf8')).trim().split('\n');
      // The first step's insert first; the second step's insert and delete in either order.
      expect(JSON.parse(lines[0] ?? '')).toEqual({ insert: { id: 2, v: 200 } });
      expect(lines.slice(1).map((l) => JSON.parse(l) as unknown)).toEqual(
        expect.arrayContaining([{ insert: { id: 3, v: 300 } }, { delete: { id: 2, v: 200 } }]),
      );
      expect(await p.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 3 }]);
      expect((await p.stats()).outputs[0]).toMatchObject({
        endpoint_name: 'big.out',
        metrics: { transmitted_records: 3 },
      });
    } finally {
      await p.close();
    }
  });

  it('a missing file is a transport error retried until it appears; csv with a header; pipeline_complete', async () => {
    const input = join(dir, 'late.csv');
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int, name text) WITH ('materialized' = 'true', ${conn([
        {
          transport: { name: 'file_input', config: { path: input } },
          format: { name: 'csv', config: { headers: true } },
        },
      ])});`,
    );
    try {
      await expect
        .poll(async () => (await p.stats()).inputs[0]?.metrics.num_transport_errors, { timeout: 20_000 })
        .toBeGreaterThan(1);
      expect((await p.stats()).global_metrics.pipeline_complete).toBe(false);
      await writeFile(input, 'id,name\n1,a\n2,"b,c"\n');
      await expect.poll(async () => (await p.stats()).global_metrics.pipeline_complete, { timeout: 20_000 }).toBe(true);
      expect((await p.stats()).inputs[0]?.metrics).toMatchObject({ total_records: 2, end_of_input: true });
      expect(await p.query('SELECT id, name FROM t ORDER BY id')).toEqual([
        { id: 1, name: 'a' },
        { id: 2, name: 'b,c' },
      ]);
    } finally {
      await p.close();
    }
  });

  it('url_input retries a failing server, then reads the body', async () => {
    let calls = 0;
    const server: Server = createServer((_req, res) => {
      calls++;
      if (calls <= 2) {
        res.writeHead(503).end('busy');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1},{"id":2},{"id":"bad"}]');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int) WITH ('materialized' = 'true', ${conn([
        {
          name: 'u',
          transport: { name: 'url_input', config: { path: `http://127.0.0.1:${port}/data`, retries: 4 } },
          format: { name: 'json', config: { update_format: 'raw', array: true } },
        },
      ])});`,
    );
    try {
      await expect.poll(async () => (await p.stats()).global_metrics.pipeline_complete, { timeout: 20_000 }).toBe(true);
      expect((await p.stats()).inputs[0]?.metrics).toMatchObject({
        total_records: 2,
        num_transport_errors: 2,
        num_parse_errors: 1,
        end_of_input: true,
      });
      expect(await p.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      await p.close();
      server.close();
    }
  });

  it("datagen makes the plan's rows; per-connector pause and start", async () => {
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id bigint, k int, tag text) WITH ('materialized' = 'true', ${conn([
        {
          name: 'gen',
          paused: true,
          transport: {
            name: 'datagen',
            config: { plan: [{ limit: 2500, fields: { k: { range: [0, 5] }, tag: { values: ['a', 'b'] } } }] },
          },
        },
      ])});
       CREATE MATERIALIZED VIEW c AS SELECT k, count(*) AS n FROM t GROUP BY k;`,
    );
    try {
      expect((await p.stats()).inputs[0]).toMatchObject({ paused: true, metrics: { total_records: 0 } });
      const res = await p.app.inject({ method: 'POST', url: '/tables/T/connectors/gen/start' });
      expect(res.statusCode).toBe(200);
      await expect.poll(async () => (await p.stats()).global_metrics.pipeline_complete, { timeout: 30_000 }).toBe(true);
      expect(await p.query('SELECT k, n FROM c ORDER BY k')).toEqual([0, 1, 2, 3, 4].map((k) => ({ k, n: 500 })));
      expect(await p.query("SELECT count(*) AS n FROM t WHERE tag IN ('a','b')")).toEqual([{ n: 2500 }]);
      expect((await p.app.inject({ method: 'POST', url: '/tables/t/connectors/nope/pause' })).statusCode).toBe(404);
    } finally {
      await p.close();
    }
  });

  it('file_input resumes after the offset its checkpoint recorded: each line once', async () => {
    const input = join(dir, 'resume.json');
    const storage = join(dir, 'resume-storage');
    await writeFile(input, [1, 2, 3].map((id) => JSON.stringify({ insert: { id } })).join('\n') + '\n');
    const program = `CREATE TABLE t (id int) WITH ('materialized' = 'true', ${conn([
      { name: 'f', transport: { name: 'file_input', config: { path: input, follow: true } } },
    ])});`;
    const ft = { fault_tolerance: { checkpoint_interval_secs: 3600 } };
    let p = await startConnectorPipeline(dir, program, ft, storage);
    try {
      await expect.poll(async () => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n, { timeout: 20_000 }).toBe(3);
      expect((await p.app.inject({ method: 'POST', url: '/checkpoint' })).statusCode).toBe(200);
      await appendFile(input, '{"insert":{"id":4}}\n{"insert":{"id":5}}\n');
      await expect.poll(async () => (await p.stats()).inputs[0]?.metrics.total_records, { timeout: 20_000 }).toBe(5);
    } finally {
      await p.close();
    }
    // A restart without a newer checkpoint: 3 rows from it, lines 4 and 5 read again from the file.
    p = await startConnectorPipeline(dir, program, ft, storage);
    try {
      await expect.poll(async () => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n, { timeout: 20_000 }).toBe(5);
      expect(await p.query('SELECT id FROM t ORDER BY id')).toEqual([1, 2, 3, 4, 5].map((id) => ({ id })));
      expect((await p.stats()).inputs[0]?.metrics.total_records).toBe(2);
    } finally {
      await p.close();
    }
  });
});
