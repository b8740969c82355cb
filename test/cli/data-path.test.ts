import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidOf, startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// The data path through the real `svc manager` (local backend, real `svc pipeline` processes, real
// engine): ingress → egress stream → query → checkpoint → stop → start → state intact → crash (kill -9)
// → start → the last checkpoint's state → clear → empty.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PROGRAM = `CREATE TABLE t (id INT NOT NULL, s TEXT) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW big AS SELECT id, s FROM t WHERE id > 1;`;

describe('data path through svc manager (local backend)', { timeout: 240_000 }, () => {
  it('ingress → egress → query → checkpoint → stop → start → intact → kill -9 → resumed → clear → empty', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-data-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    const url = (path: string) => `${m.url}/v0/pipelines/d${path}`;
    await m.call('POST', '/v0/pipelines', {
      name: 'd',
      program_code: PROGRAM,
      runtime_config: { fault_tolerance: {} },
    });
    await m.until('d', (r) => r['program_status'] === 'Success');
    const early = await fetch(url('/ingress/t?format=json'), { method: 'POST', body: '{"insert":{"id":1}}' });
    expect(early.status).toBe(503);
    expect(((await early.json()) as { error_code: string }).error_code).toBe('PipelineInteractionNotDeployed');

    const runUntilRunning = async () => {
      expect((await m.call('POST', '/v0/pipelines/d/start')).status).toBe(202);
      await m.until('d', (r) => r['deployment_status'] === 'Running');
    };
    await runUntilRunning();
    const query = async (sql: string) => (await fetch(url(`/query?format=json&sql=${encodeURIComponent(sql)}`))).text();
    const complete = async (token: string) =>
      expect
        .poll(async () => (await fetch(url(`/completion_status?token=${token}`))).status, {
          timeout: 20_000,
          interval: 50,
        })
        .toBe(200);

    const egress = await fetch(url('/egress/big?format=json'), { method: 'POST' });
    expect(egress.status).toBe(200);
    const reader = egress.body!.getReader();
    await reader.read(); // the first chunk: processed_steps at connect

    const ingress = await fetch(url('/ingress/t?format=json&update_format=raw&array=true'), {
      method: 'POST',
      body: JSON.stringify([
        { id: 1, s: 'a' },
        { id: 2, s: 'b' },
        { id: 3, s: 'c' },
      ]),
    });
    expect(ingress.status).toBe(200);
    await complete(((await ingress.json()) as { token: string }).token);
    let streamed = '';
    while (!streamed.includes('json_data')) streamed += new TextDecoder().decode((await reader.read()).value);
    const chunk = JSON.parse(streamed.split('\n').find((l) => l.includes('json_data'))!) as { json_data: unknown[] };
    expect(chunk.json_data).toHaveLength(2);
    await reader.cancel();

    expect(await query('SELECT id FROM big ORDER BY id')).toBe('{"id":2}\n{"id":3}\n');
    const cp = (await (await fetch(url('/checkpoint'), { method: 'POST' })).json()) as {
      checkpoint_sequence_number: number;
    };
    expect(cp.checkpoint_sequence_number).toBe(1);
    expect(await (await fetch(url('/checkpoint_status'))).json()).toMatchObject({ success: 1 });

    expect((await m.call('POST', '/v0/pipelines/d/stop?force=false')).status).toBe(202);
    await m.until('d', (r) => r['deployment_status'] === 'Stopped');
    await runUntilRunning();
    expect(await query('SELECT id FROM big ORDER BY id')).toBe('{"id":2}\n{"id":3}\n');

    // A crash: 4 is covered by the second checkpoint, 5 came after it. kill -9 of the process; the
    // next start resumes from that checkpoint (HTTP input is not replayable, so 5 is gone).
    const push = async (id: number) => {
      const r = await fetch(url('/ingress/t?format=json&update_format=raw'), { method: 'POST', body: `{"id":${id}}` });
      expect(r.status).toBe(200);
      await complete(((await r.json()) as { token: string }).token);
    };
    await push(4);
    const second = (await (await fetch(url('/checkpoint'), { method: 'POST' })).json()) as {
      checkpoint_sequence_number: number;
    };
    await expect
      .poll(async () => ((await (await fetch(url('/checkpoint_status'))).json()) as { success?: number }).success)
      .toBe(second.checkpoint_sequence_number);
    await push(5);
    expect(await query('SELECT id FROM big ORDER BY id')).toBe('{"id":2}\n{"id":3}\n{"id":4}\n{"id":5}\n');
    process.kill(pidOf(dataDir, (await m.get('d'))['id'] as string), 'SIGKILL');
    await m.until('d', (r) => r['deployment_status'] === 'Stopped' && r.deployment_error != null);
    await runUntilRunning();
    expect(await query('SELECT id FROM big ORDER BY id')).toBe('{"id":2}\n{"id":3}\n{"id":4}\n');

    expect((await m.call('POST', '/v0/pipelines/d/stop?force=true')).status).toBe(202);
    await m.until('d', (r) => r['deployment_status'] === 'Stopped');
    expect((await m.call('POST', '/v0/pipelines/d/clear')).status).toBe(202);
    await m.until('d', (r) => r['storage_status'] === 'Cleared');
    await runUntilRunning();
    expect(await query('SELECT id FROM big ORDER BY id')).toBe('');
    m.svc.child.kill('SIGTERM');
    expect(await m.svc.exited).toBe(0);
  });
});
