import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/model/json.js';
import { connectedDatabase, type ConnectorPipeline, startConnectorPipeline } from '../support/connector-pipeline.js';

// url_input, postgres_input and datagen keep their input positions in checkpoints: a pipeline that
// stops without a newer checkpoint (its state is the checkpoint's, as after a kill -9) resumes from
// the position the checkpoint recorded: what it covers is not read again, what it does not is.

let dir: string;
let db: Awaited<ReturnType<typeof connectedDatabase>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-resume-'));
  db = await connectedDatabase();
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

const conn = (decls: unknown[]) => `'connectors' = '${JSON.stringify(decls).replaceAll("'", "''")}'`;
const FT = { fault_tolerance: { checkpoint_interval_secs: 3600 } };

/** Runs `program` on `storage`, `work` with it, then stops it without a checkpoint of its own. */
async function run<T>(program: string, storage: string, work: (p: ConnectorPipeline) => Promise<T>): Promise<T> {
  const p = await startConnectorPipeline(dir, program, FT, storage);
  try {
    return await work(p);
  } finally {
    await p.close();
  }
}

const complete = (p: ConnectorPipeline) =>
  expect.poll(async () => (await p.stats()).global_metrics.pipeline_complete, { timeout: 30_000 }).toBe(true);
const checkpoint = async (p: ConnectorPipeline) =>
  expect((await p.app.inject({ method: 'POST', url: '/checkpoint' })).statusCode).toBe(200);
const count = async (p: ConnectorPipeline) => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n;

describe('input positions across checkpoints', () => {
  it('url_input: read before the checkpoint → not read again; read after it → read again, once', async () => {
    let calls = 0;
    const server: Server = createServer((_req, res) => {
      calls++;
      res.writeHead(200).end('{"insert":{"id":1}}\n{"insert":{"id":2}}\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const program = (name: string) =>
      `CREATE TABLE t (id int) WITH ('materialized' = 'true', ${conn([
        { name, paused: true, transport: { name: 'url_input', config: { path: url } } },
      ])});`;
    const start = async (p: ConnectorPipeline, name: string) =>
      expect((await p.app.inject({ method: 'POST', url: `/tables/t/connectors/${name}/start` })).statusCode).toBe(200);
    try {
      // Checkpoint after the read: the restart does not GET the URL and holds each row once.
      const after = join(dir, 'url-after');
      await run(program('u'), after, async (p) => {
        await start(p, 'u');
        await complete(p);
        await checkpoint(p);
      });
      expect(calls).toBe(1);
      await run(program('u'), after, async (p) => {
        await start(p, 'u');
        await complete(p);
        expect(await count(p)).toBe(2);
        expect((await p.stats()).inputs[0]?.metrics).toMatchObject({ total_records: 0, end_of_input: true });
      });
      expect(calls).toBe(1);

      // Checkpoint before the read: the restart reads the URL again, and the rows are there once.
      const before = join(dir, 'url-before');
      await run(program('v'), before, async (p) => {
        await checkpoint(p);
        await start(p, 'v');
        await complete(p);
      });
      await run(program('v'), before, async (p) => {
        await start(p, 'v');
        await complete(p);
        expect(await count(p)).toBe(2);
      });
      expect(calls).toBe(3);
    } finally {
      server.close();
    }
  });

  it('postgres_input: a query read before the checkpoint is not run again', async () => {
    await db.client.query('CREATE TABLE resume_src (id int); INSERT INTO resume_src SELECT generate_series(1, 50)');
    const program = `CREATE TABLE t (id int) WITH ('materialized' = 'true', ${conn([
      {
        name: 'pg',
        transport: { name: 'postgres_input', config: { uri: db.url, query: 'SELECT id FROM resume_src' } },
      },
    ])});`;
    const storage = join(dir, 'pg');
    await run(program, storage, async (p) => {
      await complete(p);
      await checkpoint(p);
    });
    // The query would now answer 100 rows: a resume that ran it again would hold 150.
    await db.client.query('INSERT INTO resume_src SELECT generate_series(51, 100)');
    await run(program, storage, async (p) => {
      await complete(p);
      expect(await count(p)).toBe(50);
      expect((await p.stats()).inputs[0]?.metrics).toMatchObject({ total_records: 0, end_of_input: true });
    });
  });

  it('datagen: a resume goes on from the next row; the rows are those of an uninterrupted run', async () => {
    const program = (rate?: number) =>
      `CREATE TABLE t (id bigint, k int) WITH ('materialized' = 'true', ${conn([
        {
          name: 'gen',
          transport: {
            name: 'datagen',
            config: {
              seed: 7,
              plan: [{ limit: 3000, rate, fields: { k: { strategy: 'uniform', range: [0, 1000] } } }],
            },
          },
        },
      ])});`;
    const rows = (p: ConnectorPipeline): Promise<Record<string, JsonValue>[]> =>
      p.query('SELECT id, k FROM t ORDER BY id');
    const expected = await run(program(), join(dir, 'gen-whole'), async (p) => {
      await complete(p);
      return rows(p);
    });
    // `increment` without a range: the row's index (an even index made an odd id before a fix of the wrap).
    expect(expected.map((r) => r['id'])).toEqual(Array.from({ length: 3000 }, (_, i) => i));

    const storage = join(dir, 'gen');
    await run(program(500), storage, async (p) => {
      await expect
        .poll(async () => (await p.stats()).inputs[0]?.metrics.total_records, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(500);
      // Paused, datagen stays in the middle of its plan however slow the checkpoint is.
      expect((await p.app.inject({ method: 'POST', url: '/tables/t/connectors/gen/pause' })).statusCode).toBe(200);
      await checkpoint(p);
    });
    await run(program(500), storage, async (p) => {
      await complete(p);
      const taken = (await p.stats()).inputs[0]?.metrics.total_records;
      expect(taken).toBeGreaterThan(0);
      expect(taken).toBeLessThanOrEqual(2500);
      expect(await count(p)).toBe(3000);
      expect(await rows(p)).toEqual(expected);
    });
  });
});
