import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidOf, startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// kill -9 of a real `svc pipeline` process (started by `svc manager`, local backend) after a
// checkpoint taken in the middle of datagen's plan and after url_input read its URL: the restart
// resumes from the checkpoint's positions, so every generated row is there once and the URL is not
// read again.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
let server: Server | undefined;
afterAll(() => {
  server?.close();
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const conn = (decls: unknown[]) => `'connectors' = '${JSON.stringify(decls).replaceAll("'", "''")}'`;
const LIMIT = 4000;

describe('input positions across a kill -9', { timeout: 300_000 }, () => {
  it('datagen goes on from the checkpoint; a URL read before it is not read again', async () => {
    let calls = 0;
    server = createServer((_req, res) => {
      calls++;
      res.writeHead(200).end('{"insert":{"id":1}}\n{"insert":{"id":2}}\n');
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const program_code = `CREATE TABLE g (id bigint) WITH ('materialized' = 'true', ${conn([
      { name: 'gen', transport: { name: 'datagen', config: { plan: [{ limit: LIMIT, rate: 1000 }] } } },
    ])});
      CREATE TABLE u (id int) WITH ('materialized' = 'true', ${conn([
        { name: 'u', transport: { name: 'url_input', config: { path: url } } },
      ])});`;
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-conn-crash-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    await m.call('POST', '/v0/pipelines', { name: 'c', program_code, runtime_config: { fault_tolerance: {} } });
    const api = (path: string) => `${m.url}/v0/pipelines/c${path}`;
    await m.until('c', (r) => r['program_status'] === 'Success');
    const start = async () => {
      expect((await m.call('POST', '/v0/pipelines/c/start')).status).toBe(202);
      await m.until('c', (r) => r['deployment_status'] === 'Running');
    };
    const records = async (endpoint: string) => {
      const stats = (await m.call('GET', '/v0/pipelines/c/stats')).body as unknown as {
        inputs: { endpoint_name: string; metrics: { total_records: number } }[];
      };
      return stats.inputs.find((e) => e.endpoint_name === endpoint)?.metrics.total_records ?? -1;
    };
    const query = async (sql: string) =>
      JSON.parse(await (await fetch(api(`/query?format=json&sql=${encodeURIComponent(sql)}`))).text()) as unknown;

    await start();
    await expect.poll(() => records('u.u'), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => records('g.gen'), { timeout: 30_000 }).toBeGreaterThanOrEqual(1000);
    // Paused, datagen stays in the middle of its plan however slow the checkpoint is.
    expect((await m.call('POST', '/v0/pipelines/c/tables/g/connectors/gen/pause')).status).toBe(200);
    const cp = (await (await fetch(api('/checkpoint'), { method: 'POST' })).json()) as {
      checkpoint_sequence_number: number;
    };
    await expect
      .poll(async () => ((await (await fetch(api('/checkpoint_status'))).json()) as { success?: number }).success, {
        timeout: 30_000,
      })
      .toBe(cp.checkpoint_sequence_number);
    expect(await records('g.gen')).toBeLessThan(LIMIT);
    process.kill(pidOf(dataDir, (await m.get('c'))['id'] as string), 'SIGKILL');
    await m.until('c', (r) => r['deployment_status'] === 'Stopped' && r.deployment_error != null);

    await start();
    await expect
      .poll(async () => (await query('SELECT count(*) AS n, count(DISTINCT id) AS d FROM g')) as object, {
        timeout: 60_000,
      })
      .toEqual({ n: LIMIT, d: LIMIT });
    expect(await records('g.gen')).toBeLessThan(LIMIT); // the restart made only the rows after the checkpoint
    expect(await query('SELECT count(*) AS n FROM u')).toEqual({ n: 2 });
    expect(await records('u.u')).toBe(0);
    expect(calls).toBe(1);
    expect((await m.call('POST', '/v0/pipelines/c/stop?force=true')).status).toBe(202);
    await m.until('c', (r) => r['deployment_status'] === 'Stopped');
  });
});
