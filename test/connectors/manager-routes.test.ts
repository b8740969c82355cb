import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// The per-connector routes through the real `svc manager` (local backend, a real `svc pipeline`
// process): forwarded to the pipeline as they are, its answers (404 bodies too) passed back.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('per-connector routes through svc manager', { timeout: 240_000 }, () => {
  it('completion_token and completion_status; stats; unknown connector 404 with its body', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-conn-mgr-'));
    dirs.push(dataDir);
    const input = join(dataDir, 'in.json');
    writeFileSync(input, '{"insert":{"id":1}}\n{"insert":{"id":2}}\n');
    const connectors = JSON.stringify([{ name: 'f', transport: { name: 'file_input', config: { path: input } } }]);
    const m = await startManagerClient(dataDir, procs);
    await m.call('POST', '/v0/pipelines', {
      name: 'c',
      program_code: `CREATE TABLE t (id int) WITH ('materialized' = 'true', 'connectors' = '${connectors}');`,
    });
    await m.until('c', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/c/start')).status).toBe(202);
    await m.until('c', (r) => r['deployment_status'] === 'Running');

    const stats = async () => (await m.call('GET', '/v0/pipelines/c/tables/t/connectors/f/stats')).body;
    await expect
      .poll(async () => (await stats())['metrics'], { timeout: 30_000 })
      .toMatchObject({ total_records: 2, end_of_input: true });
    const res = await m.call('GET', '/v0/pipelines/c/tables/t/connectors/f/completion_token');
    expect(res.status).toBe(200);
    const token = (res.body as unknown as { token: string }).token;
    expect(token).toEqual(expect.any(String));
    await expect
      .poll(async () => (await m.call('GET', `/v0/pipelines/c/completion_status?token=${token}`)).body['status'], {
        timeout: 20_000,
      })
      .toBe('complete');

    const unknown = await m.call('GET', '/v0/pipelines/c/tables/t/connectors/nope/completion_token');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      error_code: 'UnknownConnector',
      message: 'no input connector nope of table t',
      details: { table: 't', connector: 'nope' },
    });
    expect((await m.call('POST', '/v0/pipelines/c/stop?force=true')).status).toBe(202);
    await m.until('c', (r) => r['deployment_status'] === 'Stopped');
  });
});
