import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// The pipeline process's own HTTP port is authenticated (docs/security.md): the local runner writes a
// per-deployment token into the deployment's directory (owner-only), the process requires it on every
// request, and the manager presents it on every call it forwards. State changes are POST.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PROGRAM = `CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t;`;

describe("the pipeline's HTTP port", { timeout: 180_000 }, () => {
  it('answers 401 without the deployment token; the manager presents it; the token is owner-only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    await m.call('POST', '/v0/pipelines', { name: 'a', program_code: PROGRAM });
    await m.until('a', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/a/start')).status).toBe(202);
    await m.until('a', (r) => r['deployment_status'] === 'Running');

    const record = await m.get('a');
    const dir = join(dataDir, 'pipelines', String(record['id']));
    const { port } = JSON.parse(readFileSync(join(dir, 'process.json'), 'utf8')) as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const token = readFileSync(join(dir, 'auth-token'), 'utf8');
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    // Owner-only: the token, the config (connector credentials) and the directory that holds them.
    expect(statSync(join(dir, 'auth-token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'deployment.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'process.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // Never in the record the API shows.
    expect(JSON.stringify(record)).not.toContain(token);

    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/status', {}],
      ['GET', '/stats', {}],
      ['GET', '/metrics', {}],
      ['GET', '/query?sql=select%201', {}],
      ['POST', '/ingress/t?format=json', {}],
      ['POST', '/pause', {}],
      ['POST', '/checkpoint', {}],
      ['GET', '/status', { authorization: 'Bearer wrong' }],
      ['GET', '/status', { authorization: token }],
      // Another deployment's token, or this one off by a digit.
      ['POST', '/pause', { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}` }],
    ];
    for (const [method, path, headers] of cases) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(method === 'POST' && { body: '{"insert":{"id":1}}' }),
      });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({ error_code: 'Unauthorized', message: expect.stringContaining('token'), details: null });
    }
    // Nothing of the above changed the pipeline.
    expect((await m.get('a'))['deployment_status']).toBe('Running');

    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${base}/status`, { headers: auth })).status).toBe(200);
    // A state change on a GET is no endpoint anymore.
    expect((await fetch(`${base}/pause`, { headers: auth })).status).toBe(404);
    const status = (await (await fetch(`${base}/status`, { headers: auth })).json()) as Record<string, unknown>;
    expect(status['runtime_status']).toBe('Running');

    // Through the manager, which derives the token: ingress, query, pause, resume.
    const ingress = await fetch(`${m.url}/v0/pipelines/a/ingress/t?format=json`, {
      method: 'POST',
      body: '{"insert":{"id":1}}\n{"insert":{"id":2}}',
    });
    expect(ingress.status).toBe(200);
    await expect
      .poll(async () => (await fetch(`${m.url}/v0/pipelines/a/query?format=json&sql=select%20c%20from%20n`)).text(), {
        timeout: 20_000,
      })
      .toContain('"c":2');
    expect((await m.call('POST', '/v0/pipelines/a/pause')).status).toBe(200);
    await m.until('a', (r) => r['deployment_status'] === 'Paused');
    expect((await m.call('POST', '/v0/pipelines/a/resume')).status).toBe(200);
    await m.until('a', (r) => r['deployment_status'] === 'Running');
    expect((await m.call('GET', '/v0/pipelines/a/stats')).status).toBe(200);
    // A graceful stop (forwarded to the pipeline's /suspend, or planned at once without fault tolerance).
    expect((await m.call('POST', '/v0/pipelines/a/stop')).status).toBeLessThan(300);
    await m.until('a', (r) => r['deployment_status'] === 'Stopped');
  });
});
