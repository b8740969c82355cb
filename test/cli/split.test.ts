import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackend } from '../support/api-harness.js';
import { followLogs } from '../support/svc-manager.js';
import { message, startReady, startSvc, type SvcProcess } from '../support/svc-process.js';

// The components apart, as the Helm chart runs them: api-server, compiler-server and runner are
// three processes that share only the database and HTTP (ARCHITECTURE.md).

const procs: SvcProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-split-'));
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('svc components as separate processes on one PostgreSQL', { timeout: 180_000 }, () => {
  it('api-server + compiler-server + runner run a pipeline to Running and back to Stopped', async () => {
    const { url: db, drop, db: handle } = await openBackend('postgres');
    await handle.close();
    try {
      const common = ['--database-url', db as string];
      const compiler = await startReady(
        ['compiler-server', '--port', '0', '--data-dir', join(dir, 'c'), ...common],
        'svc compiler-server ready at',
        procs,
      );
      const runner = await startReady(
        [
          'runner',
          '--backend',
          'local',
          '--port',
          '0',
          '--compiler-url',
          compiler.url,
          '--data-dir',
          join(dir, 'r'),
          ...common,
        ],
        'svc runner ready',
        procs,
      );
      // The api-server streams /logs from the runner that holds them.
      const api = await startReady(
        ['api-server', '--port', '0', '--runner-url', runner.url, ...common],
        'svc manager ready at',
        procs,
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

      // /logs through the api-server: the runner's backlog, then a line written after it was opened.
      const follow = await followLogs(api.url, 'split');
      expect(follow.status).toBe(200);
      expect(follow.contentType).toBe('text/plain; charset=utf-8');
      await follow.waitFor((l) => l.includes('pipeline initialization complete'));
      const relaying = connectionsTo(runner.url);
      expect(relaying.length).toBeGreaterThan(0);
      expect(follow.lines.some((l) => l.includes('from Running to Paused'))).toBe(false);
      await call('POST', '/v0/pipelines/split/pause');
      await follow.waitFor((l) => l.includes('runtime status changed from Running to Paused'));
      follow.close();
      await follow.ended;
      // follow=false through the relay: the runner's backlog, and the answer ends.
      const backlog = await fetch(`${api.url}/v0/pipelines/split/logs?follow=false`);
      expect(backlog.status).toBe(200);
      expect(await backlog.text()).toContain('runtime status changed from Running to Paused');
      // The api-server aborts its request to the runner as soon as its client has gone.
      // (Its HTTP client may open an idle spare connection: only the one that carried the stream counts.)
      await expect
        .poll(() => connectionsTo(runner.url).filter((c) => relaying.includes(c)), { timeout: 10_000 })
        .toEqual([]);
      // The runner's own endpoint: a pipeline it never ran has no log there.
      const none = await fetch(`${runner.url}/v0/pipelines/00000000-0000-4000-8000-000000000000/logs`);
      expect(none.status).toBe(404);
      expect(await none.json()).toEqual({
        message: 'This runner has no log of pipeline 00000000-0000-4000-8000-000000000000',
        error_code: 'NotFound',
        details: { pipeline_id: '00000000-0000-4000-8000-000000000000' },
      });

      // A follower still attached when the deployment ends gets the last lines, then the end.
      const untilStop = await followLogs(api.url, 'split');
      await untilStop.waitFor((l) => l.includes('pipeline initialization complete'));
      await call('POST', '/v0/pipelines/split/stop?force=true');
      await until((r) => r['deployment_status'] === 'Stopped');
      await untilStop.ended;
      expect(untilStop.lines.some((l) => l.includes('received SIGTERM'))).toBe(true);

      // Relaying and the client leaving are no failures of the api-server.
      expect(api.svc.lines.filter((l) => l['level'] === 'ERROR')).toEqual([]);
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

  it('api-server with an unreachable runner (SVC_RUNNER_URL): /logs answers 503 naming the runner', async () => {
    const { url: db, drop, db: handle } = await openBackend('postgres');
    await handle.close();
    try {
      const runnerUrl = `http://127.0.0.1:${await closedPort()}`;
      const svc = startSvc(['api-server', '--port', '0', '--database-url', db as string], {
        SVC_RUNNER_URL: runnerUrl,
      });
      procs.push(svc);
      const ready = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'));
      const url = String((ready['fields'] as { url?: string }).url);
      await fetch(`${url}/v0/pipelines`, {
        method: 'POST',
        body: JSON.stringify({ name: 'lost', program_code: '' }),
      });
      const res = await fetch(`${url}/v0/pipelines/lost/logs`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        message: `Pipeline 'lost' cannot be reached: the runner at ${runnerUrl} streaming its log is unreachable (ECONNREFUSED)`,
        error_code: 'PipelineInteractionUnreachable',
        details: { pipeline_name: 'lost', runner_url: runnerUrl },
      });
      svc.child.kill('SIGTERM');
      expect(await svc.exited).toBe(0);
    } finally {
      await drop();
    }
  });

  it('api-server --help lists --runner-url', async () => {
    const svc = startSvc(['api-server', '--help']);
    expect(await svc.exited).toBe(0);
    expect(svc.stdout()).toContain('--runner-url <url>');
    expect(svc.stdout()).toContain('SVC_RUNNER_URL');
  });
});

/** The local ends of the open TCP connections to a URL's port, from the kernel's table (state 01). */
function connectionsTo(url: string): string[] {
  const hex = Number(new URL(url).port).toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((row) => row.trim().split(/\s+/))
    .filter((cols) => cols[2]?.endsWith(`:${hex}`) && cols[3] === '01')
    .map((cols) => cols[1] ?? '');
}

/** A loopback port nothing listens on (just released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
