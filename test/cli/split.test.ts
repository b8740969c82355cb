import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackend } from '../support/api-harness.js';
import { message, startSvc, type SvcProcess } from '../support/svc-process.js';

// The components apart, as the Helm chart runs them: api-server, compiler-server and runner are
// three processes that share only the database and HTTP (ARCHITECTURE.md).

const procs: SvcProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-split-'));
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function started(args: string[], readyPrefix: string) {
  const svc = startSvc(args);
  procs.push(svc);
  const line = await svc.waitForLine((l) => message(l).startsWith(readyPrefix));
  return { svc, url: String((line['fields'] as { url?: string }).url ?? '') };
}

describe('svc components as separate processes on one PostgreSQL', { timeout: 180_000 }, () => {
  it('api-server + compiler-server + runner run a pipeline to Running and back to Stopped', async () => {
    const { url: db, drop, db: handle } = await openBackend('postgres');
    await handle.close();
    try {
      const common = ['--database-url', db as string];
      const api = await started(['api-server', '--port', '0', ...common], 'svc manager ready at');
      const compiler = await started(
        ['compiler-server', '--port', '0', '--data-dir', join(dir, 'c'), ...common],
        'svc compiler-server ready at',
      );
      const runner = await started(
        ['runner', '--backend', 'local', '--compiler-url', compiler.url, '--data-dir', join(dir, 'r'), ...common],
        'svc runner ready',
      );
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${api.url}${path}`, {
          method,
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return (await res.json().catch(() => undefined)) as Record<string, unknown>;
      };
      const until = (pred: (r: Record<string, unknown>) => boolean) =>
        expect
          .poll(async () => pred(await call('GET', '/v0/pipelines/split')), { timeout: 90_000, interval: 200 })
          .toBe(true);

      await call('POST', '/v0/pipelines', { name: 'split', program_code: 'CREATE TABLE t (x INT);' });
      await until((r) => r['program_status'] === 'Success');
      await call('POST', '/v0/pipelines/split/start');
      await until((r) => r['deployment_status'] === 'Running');
      expect((await call('GET', '/v0/cluster_healthz'))['all_healthy']).toBe(true);
      await call('POST', '/v0/pipelines/split/stop?force=true');
      await until((r) => r['deployment_status'] === 'Stopped');

      // Each process names itself in its lines.
      expect(
        compiler.svc.lines.some(
          (l) => l['svc-service'] === 'compiler-server' && message(l) === 'SQL compilation started',
        ),
      ).toBe(true);
      expect(
        runner.svc.lines.some(
          (l) => l['svc-service'] === 'runner' && message(l).includes('Provisioning → Provisioned'),
        ),
      ).toBe(true);
      for (const p of [api, compiler, runner]) p.svc.child.kill('SIGTERM');
      expect(await Promise.all([api, compiler, runner].map((p) => p.svc.exited))).toEqual([0, 0, 0]);
    } finally {
      await drop();
    }
  });
});
