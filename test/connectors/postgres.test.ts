import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectorPipeline, connectedDatabase } from '../support/connector-pipeline.js';
import { startPostgresContainer } from '../support/containers/postgres.js';

// postgres_input and postgres_output against the project's PostgreSQL, a container (a database of
// its own): a query read once, a view's changes applied as inserts/deletes or upserts on a key; a
// missing table is a transport error retried until it exists; the URI's password (the server checks
// it) never reaches a log.

let dir: string;
let db: Awaited<ReturnType<typeof connectedDatabase>>;
let client: pg.Client;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-pg-conn-'));
  db = await connectedDatabase();
  client = db.client;
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** The password in the database URL (scram-sha-256 logins), which no stats or log may show. */
const passwordOf = (url: string): string => {
  const password = decodeURIComponent(new URL(url).password);
  expect(password.length).toBeGreaterThan(8);
  return password;
};

const rows = async (sql: string) => (await client.query(sql)).rows as Record<string, unknown>[];

describe('postgres connectors', () => {
  it('postgres_input reads its query once (after a missing table was retried); secrets stay out of logs', async () => {
    const uri = db.url;
    const secret = passwordOf(uri);
    const decl = [
      { name: 'pg', transport: { name: 'postgres_input', config: { uri, query: 'SELECT id, name, at FROM src' } } },
    ];
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int, name text, at timestamp) WITH ('materialized' = 'true', 'connectors' = '${JSON.stringify(decl)}');`,
    );
    try {
      await expect
        .poll(async () => (await p.stats()).inputs[0]?.metrics.num_transport_errors, { timeout: 20_000 })
        .toBeGreaterThan(0);
      await client.query(
        `CREATE TABLE src (id int, name text, at timestamp);
         INSERT INTO src VALUES (1, 'a', '2026-01-02 03:04:05'), (2, NULL, NULL)`,
      );
      await expect.poll(async () => (await p.stats()).global_metrics.pipeline_complete, { timeout: 30_000 }).toBe(true);
      expect(await p.query('SELECT id, name, at FROM t ORDER BY id')).toEqual([
        { id: 1, name: 'a', at: '2026-01-02T03:04:05' },
        { id: 2, name: null, at: null },
      ]);
      const s = await p.stats();
      expect(JSON.stringify(s)).not.toContain(secret);
      expect(JSON.stringify(s.inputs[0]?.config)).toContain('<redacted>');
      expect(p.logs.join('')).toContain('input transport error');
      expect(p.logs.join('')).not.toContain(secret);
    } finally {
      await p.close();
    }
  });

  it("postgres_output applies a view's changes: insert mode and upsert on a key", async () => {
    const outs = [
      { name: 'ins', transport: { name: 'postgres_output', config: { uri: db.url, table: 'out_insert' } } },
      {
        name: 'ups',
        transport: {
          name: 'postgres_output',
          config: { uri: db.url, table: 'public.out_upsert', mode: 'upsert', key: ['id'] },
        },
      },
    ];
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int NOT NULL PRIMARY KEY, v int, note text) WITH ('materialized' = 'true');
       CREATE MATERIALIZED VIEW big WITH ('connectors' = '${JSON.stringify(outs)}') AS SELECT id, v, note FROM t WHERE v > 10;`,
    );
    const ingest = async (lines: object[]) => {
      const res = await p.app.inject({
        method: 'POST',
        url: '/ingress/t?format=json',
        payload: lines.map((l) => JSON.stringify(l)).join('\n'),
      });
      expect(res.statusCode).toBe(200);
    };
    try {
      // The target tables do not exist yet: transport errors, retried.
      await ingest([
        { insert: { id: 1, v: 20, note: "it's" } },
        { insert: { id: 2, v: 30, note: null } },
        { insert: { id: 3, v: 5 } },
      ]);
      await expect
        .poll(async () => (await p.stats()).connector_stats.num_errors, { timeout: 20_000 })
        .toBeGreaterThan(1);
      await client.query(
        'CREATE TABLE out_insert (id int, v int, note text); CREATE TABLE out_upsert (id int PRIMARY KEY, v int, note text)',
      );
      await ingest([{ insert: { id: 1, v: 25, note: 'new' } }, { delete: { id: 2 } }, { insert: { id: 4, v: 40 } }]);
      const view = await p.query('SELECT id, v, note FROM big ORDER BY id');
      expect(view).toEqual([
        { id: 1, v: 25, note: 'new' },
        { id: 4, v: 40, note: null },
      ]);
      await expect
        .poll(async () => (await p.stats()).outputs.every((o) => o.metrics.queued_records === 0), { timeout: 30_000 })
        .toBe(true);
      expect(await rows('SELECT id, v, note FROM out_insert ORDER BY id')).toEqual(view);
      expect(await rows('SELECT id, v, note FROM out_upsert ORDER BY id')).toEqual(view);
    } finally {
      await p.close();
    }
  });

  it('postgres_output: a database that goes away and comes back costs counted errors, then catches up', async () => {
    const server = await startPostgresContainer();
    const own = new pg.Client(server.url);
    own.on('error', () => undefined);
    await own.connect();
    await own.query('CREATE TABLE out (id int PRIMARY KEY, v int)');
    await own.end();
    const outs = [
      {
        name: 'pg',
        transport: { name: 'postgres_output', config: { uri: server.url, table: 'out', mode: 'upsert', key: ['id'] } },
      },
    ];
    const p = await startConnectorPipeline(
      dir,
      `CREATE TABLE t (id int NOT NULL PRIMARY KEY, v int) WITH ('materialized' = 'true');
       CREATE MATERIALIZED VIEW big WITH ('connectors' = '${JSON.stringify(outs)}') AS SELECT id, v FROM t WHERE v > 10;`,
    );
    const ingest = (lines: object[]) =>
      p.app.inject({
        method: 'POST',
        url: '/ingress/t?format=json',
        payload: lines.map((l) => JSON.stringify(l)).join('\n'),
      });
    const out = async () => {
      const c = new pg.Client(server.url);
      await c.connect();
      try {
        return (await c.query('SELECT id, v FROM out ORDER BY id')).rows as unknown;
      } finally {
        await c.end();
      }
    };
    try {
      await ingest([{ insert: { id: 1, v: 20 } }]);
      await expect.poll(out, { timeout: 20_000 }).toEqual([{ id: 1, v: 20 }]);
      await server.stop();
      await ingest([{ insert: { id: 2, v: 30 } }, { insert: { id: 1, v: 21 } }]);
      await expect
        .poll(async () => (await p.stats()).outputs[0]?.metrics.num_transport_errors, { timeout: 20_000 })
        .toBeGreaterThan(0);
      await ingest([{ delete: { id: 2 } }, { insert: { id: 3, v: 40 } }]);
      expect(p.ctl.status).toBe('Running');
      await server.start();
      await expect.poll(out, { timeout: 30_000 }).toEqual([
        { id: 1, v: 21 },
        { id: 3, v: 40 },
      ]);
      expect((await p.stats()).connector_stats.num_errors).toBeGreaterThan(0);
    } finally {
      await p.close();
      await server.destroy();
    }
  });
});
