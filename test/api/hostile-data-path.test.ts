import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SvcProcess } from '../support/svc-process.js';
import { startManagerClient } from '../support/svc-manager.js';

// Issue 27's data path failures, on real processes (`svc manager` and its pipeline process): the
// engine runs on a thread of its own and ad-hoc queries on a replica of their own, so neither a long
// query nor a long step keeps the process from answering; queries are isolated and bounded; an
// ingress that outlasts its bound says its outcome is unknown and hands its token. The bounds on the
// calls below (10 s) are liveness bounds, far beyond an answer (milliseconds) and far below the
// 25-60 s the engine is kept busy: before the change each of them waited for the engine.

const PROGRAM = `
CREATE TABLE t (id INT NOT NULL, v INT) WITH ('materialized' = 'true');
CREATE TABLE slow_in (id INT NOT NULL) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(v) AS total FROM t;
CREATE VIEW hidden AS SELECT id FROM t;
CREATE MATERIALIZED VIEW slow AS SELECT s.id FROM slow_in s, LATERAL (SELECT pg_sleep(s.id * 25)) z;
`;

const procs: SvcProcess[] = [];
let dataDir: string;
let m: Awaited<ReturnType<typeof startManagerClient>>;
const bound = () => AbortSignal.timeout(10_000);

const query = (sql: string, format = 'json', signal: AbortSignal = AbortSignal.timeout(60_000)) =>
  fetch(`${m.url}/v0/pipelines/p/query?format=${format}&sql=${encodeURIComponent(sql)}`, { signal });

async function ingest(table: string, body: string): Promise<Response> {
  return fetch(`${m.url}/v0/pipelines/p/ingress/${table}?format=json`, { method: 'POST', body });
}

/** Polls until `done` (beforeAll cannot use expect.poll); the hook's or test's timeout bounds it. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 100));
}

const completed = (token: string) =>
  until(async () => (await fetch(`${m.url}/v0/pipelines/p/completion_status?token=${token}`)).status === 200);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-hostile-'));
  m = await startManagerClient(dataDir, procs);
  expect((await m.call('POST', '/v0/pipelines', { name: 'p', program_code: PROGRAM })).status).toBe(201);
  await until(async () => (await m.get('p'))['program_status'] === 'Success');
  expect((await m.call('POST', '/v0/pipelines/p/start')).status).toBe(202);
  await until(async () => (await m.get('p'))['deployment_status'] === 'Running');
  const r = await ingest('t', '{"insert":{"id":1,"v":10}}\n{"insert":{"id":2,"v":20}}');
  expect(r.status).toBe(200);
  await completed(((await r.json()) as { token: string }).token);
}, 300_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('a long query runs beside the pipeline, not in its way', { timeout: 120_000 }, () => {
  it('SELECT pg_sleep(60) leaves /status, /stats and ingress answering; its client leaving stops it', async () => {
    const leave = new AbortController();
    const sleeping = query('SELECT pg_sleep(60)', 'json', leave.signal).catch((e: unknown) => e);
    // The query has reached the replica once its thread exists; give it the time to start.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await fetch(`${m.url}/v0/pipelines/p/stats`, { signal: bound() })).status).toBe(200);
    const r = await fetch(`${m.url}/v0/pipelines/p/ingress/t?format=json`, {
      method: 'POST',
      body: '{"insert":{"id":3,"v":30}}',
      signal: bound(),
    });
    expect(r.status).toBe(200);
    await completed(((await r.json()) as { token: string }).token);
    leave.abort();
    await sleeping;
    // The replica was stopped with its client: the next query does not wait out the 60 s, and
    // it sees the last step (three rows).
    const next = await query('SELECT n, total FROM totals', 'json', AbortSignal.timeout(30_000));
    expect(next.status).toBe(200);
    expect(await next.text()).toBe('{"n":3,"total":60}\n');
  });

  it('a query past its memory bound fails alone with ResourcesExhausted (no budget configured)', async () => {
    const r = await query('SELECT * FROM generate_series(1, 1e8)', 'text');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error_code: 'ResourcesExhausted' });
    expect((await query('SELECT n FROM totals')).status).toBe(200);
  });
});

describe('a query reads the materialized relations and changes nothing', { timeout: 60_000 }, () => {
  it('set_config is refused and ingest goes on; no setting survives a query', async () => {
    for (const sql of [
      "SELECT set_config('default_transaction_read_only', 'on', false)",
      "SELECT set_config('svc.now_ms', '0', false)",
      "SELECT query_to_xml('select * from hidden', true, false, '')",
    ]) {
      const r = await query(sql);
      expect(r.status, sql).toBe(400);
      expect(await r.json()).toMatchObject({ error_code: 'InvalidSqlQuery' });
    }
    const r = await ingest('t', '{"insert":{"id":4,"v":40}}');
    expect(r.status).toBe(200);
    await completed(((await r.json()) as { token: string }).token);
    expect(await (await query('SELECT n FROM totals')).text()).toBe('{"n":4}\n');
  });

  it('internal schemas, other relations and the catalog of roles are out of reach; no superuser', async () => {
    for (const sql of ['SELECT * FROM svc_state.totals', 'SELECT * FROM svc_in.t', 'SELECT * FROM hidden']) {
      const r = await query(sql);
      expect(r.status, sql).toBe(400);
    }
    const denied = await query('SELECT rolname FROM pg_authid');
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ details: { sqlstate: '42501' } });
    const su = await query("SELECT current_setting('is_superuser') AS su");
    expect(await su.text()).toBe('{"su":"off"}\n');
    const names = await query(
      "SELECT string_agg(relname, ',' ORDER BY relname) AS r FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'v')",
    );
    expect(await names.text()).toBe('{"r":"slow,slow_in,t,totals"}\n');
  });
});

describe('a long step: nothing waits for it, and no answer contradicts what happens', { timeout: 180_000 }, () => {
  it('ingress answers 504 IngressOutcomeUnknown with the token that then completes; /stats answers', async () => {
    // A step of 25 s (the view sleeps for its new row).
    expect((await ingest('slow_in', '{"insert":{"id":1}}')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const during = await fetch(`${m.url}/v0/pipelines/p/stats`, { signal: bound() });
    expect(during.status).toBe(200);
    const r = await ingest('t', '{"insert":{"id":5,"v":50}}');
    if (r.status === 200) throw new Error('the step ended before the ingress bound: nothing was tested');
    expect(r.status).toBe(504);
    const body = (await r.json()) as { error_code: string; details: { token: string } };
    expect(body.error_code).toBe('IngressOutcomeUnknown');
    await completed(body.details.token);
    expect(await (await query('SELECT n FROM totals')).text()).toBe('{"n":5}\n');
  });
});
