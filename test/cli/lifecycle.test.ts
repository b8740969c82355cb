import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, followLogs, pidOf, pipelineProcesses, startManagerClient } from '../support/svc-manager.js';
import { message, type SvcProcess } from '../support/svc-process.js';

// The whole lifecycle through the HTTP API of the real `svc manager`: real compiler, runner, local
// backend and `svc pipeline` child processes.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PROGRAM = 'CREATE TABLE t (x INT PRIMARY KEY);\nCREATE VIEW v AS SELECT x FROM t;';
const manager = (dataDir: string) => startManagerClient(dataDir, procs);

/** The pid of a pipeline's process as soon as the local backend has recorded it. */
async function firstPid(dataDir: string, id: string): Promise<number> {
  let pid = 0;
  await expect
    .poll(
      () => {
        try {
          pid = pidOf(dataDir, id);
          return true;
        } catch {
          return false;
        }
      },
      { timeout: 30_000, interval: 5 },
    )
    .toBe(true);
  return pid;
}

const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'svc-life-'));
  dirs.push(d);
  return d;
};

describe('pipeline lifecycle on svc manager (local backend)', { timeout: 180_000 }, () => {
  it('create → compile → start → Running → pause → resume → clock → stop → clear → delete', async () => {
    const dataDir = freshDir();
    const m = await manager(dataDir);
    const created = await m.call('POST', '/v0/pipelines', {
      name: 'life',
      program_code: PROGRAM,
      runtime_config: { workers: 2, dev_tweaks: { now_http_driven: true } },
    });
    expect(created.status).toBe(201);
    await m.until('life', (r) => r['program_status'] === 'Success');
    const before = await m.get('life');
    expect((await m.call('POST', '/v0/pipelines/life/start')).status).toBe(202);
    await m.until('life', (r) => r['deployment_status'] === 'Running');
    const running = await m.get('life');
    expect(running).toMatchObject({
      deployment_resources_status: 'Provisioned',
      deployment_resources_desired_status: 'Provisioned',
      deployment_runtime_status: 'Running',
      deployment_runtime_desired_status: 'Running',
      deployment_desired_status: 'Running',
      deployment_initial: 'Running',
      storage_status: 'InUse',
    });
    expect(running['deployment_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      String(running['deployment_resources_status_since']) > String(before['deployment_resources_status_since']),
    ).toBe(true);
    expect(running['refresh_version']).toBeGreaterThan(before['refresh_version'] as number);
    // The first start on a fresh data dir ran no initdb: the build's engine dump was there, so the
    // runner wrote no dump of its own into the data dir's cache.
    expect(existsSync(new URL('../../dist/engine-initdb.tar', import.meta.url))).toBe(true);
    expect(readdirSync(join(dataDir, 'cache')).filter((f) => f.startsWith('engine-'))).toEqual([]);

    // /logs follows: the backlog first, then a line written after the stream was opened.
    const follow = await followLogs(m.url, 'life');
    expect(follow.status).toBe(200);
    expect(follow.contentType).toBe('text/plain; charset=utf-8');
    await follow.waitFor((l) => l.includes('pipeline initialization complete'));
    expect(follow.lines.some((l) => l.includes('from Running to Paused'))).toBe(false);
    expect((await m.call('POST', '/v0/pipelines/life/pause')).status).toBe(200);
    await follow.waitFor((l) => l.includes('runtime status changed from Running to Paused'));
    follow.close();
    // follow=false: the backlog alone, and the answer ends (text() resolves), so a plain curl returns.
    const backlog = await fetch(`${m.url}/v0/pipelines/life/logs?follow=false`);
    expect(backlog.status).toBe(200);
    expect(await backlog.text()).toContain('runtime status changed from Running to Paused');
    const bad = await m.call('GET', '/v0/pipelines/life/logs?follow=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error_code: 'MalformedRequest', details: { parameter: 'follow' } });
    await m.until('life', (r) => r['deployment_status'] === 'Paused', 10_000);
    expect((await m.call('POST', '/v0/pipelines/life/resume')).status).toBe(200);
    await m.until('life', (r) => r['deployment_status'] === 'Running', 10_000);

    const clock = await m.call('POST', '/v0/pipelines/life/clock/advance', { delta_ms: 60_000 });
    expect(clock.status).toBe(200);
    expect(clock.body).toMatchObject({ now_ms: expect.any(Number), now: expect.any(String) });
    const stats = await m.call('GET', '/v0/pipelines/life/stats');
    expect(stats.status).toBe(200);
    // A follower still attached when the deployment ends sees the process's last lines, then the end.
    const untilStop = await followLogs(m.url, 'life');
    const relayed = m.svc.lines.find((l) => l['svc-service'] === 'runner' && 'line' in (l['fields'] as object));
    expect(relayed).toMatchObject({ 'pipeline-name': 'life', target: 'svc::runner::local' });

    const pid = pidOf(dataDir, running['id'] as string);
    expect((await m.call('POST', '/v0/pipelines/life/stop?force=true')).status).toBe(202);
    await m.until('life', (r) => r['deployment_status'] === 'Stopped');
    await untilStop.ended;
    expect(untilStop.lines.some((l) => l.includes('received SIGTERM'))).toBe(true);
    const stopped = await m.get('life');
    expect(stopped).toHaveProperty('deployment_id', null);
    expect(stopped).toHaveProperty('deployment_runtime_status', null);
    expect(stopped['storage_status']).toBe('InUse');
    expect(alive(pid)).toBe(false);

    expect((await m.call('DELETE', '/v0/pipelines/life')).body.error_code).toBe('DeleteRestrictedToClearedStorage');
    expect((await m.call('POST', '/v0/pipelines/life/clear')).status).toBe(202);
    await m.until('life', (r) => r['storage_status'] === 'Cleared');
    expect((await m.call('DELETE', '/v0/pipelines/life')).status).toBe(200);
    m.svc.child.kill('SIGTERM');
    expect(await m.svc.exited).toBe(0);
  });

  it('a program that does not compile never starts', async () => {
    const m = await manager(freshDir());
    await m.call('POST', '/v0/pipelines', { name: 'bad', program_code: 'CREATE TABLE (;' });
    const start = await m.call('POST', '/v0/pipelines/bad/start');
    // Refused at once if compilation already failed; else the runner refuses it (early start).
    if (start.status === 400) expect(start.body.error_code).toBe('CannotStartWithCompilationError');
    else {
      await m.until('bad', (r) => r.deployment_error?.error_code === 'StartFailedDueToFailedCompilation');
      expect((await m.get('bad'))['deployment_desired_status']).toBe('Stopped');
    }
    expect((await m.get('bad'))['deployment_status']).toBe('Stopped');
  });

  it('a process that never becomes ready: ProvisioningTimeout, Stopping, Stopped', async () => {
    const dataDir = freshDir();
    const m = await manager(dataDir);
    await m.call('POST', '/v0/pipelines', {
      name: 'hung',
      program_code: PROGRAM,
      runtime_config: { provisioning_timeout_secs: 2 },
    });
    await m.until('hung', (r) => r['program_status'] === 'Success');
    const id = (await m.get('hung'))['id'] as string;
    await m.call('POST', '/v0/pipelines/hung/start');
    // A real hung process: frozen (SIGSTOP) as soon as it exists, before it can answer anything.
    const pid = await firstPid(dataDir, id);
    process.kill(pid, 'SIGSTOP');
    await m.until('hung', (r) => r['deployment_status'] === 'Stopped' && r.deployment_error != null, 60_000);
    const hung = await m.get('hung');
    expect(hung.deployment_error).toMatchObject({ error_code: 'ProvisioningTimeout', details: { timeout_secs: 2 } });
    expect(hung['deployment_resources_desired_status']).toBe('Stopped');
    // The stop escalated to SIGKILL: a frozen process cannot handle SIGTERM.
    expect(alive(pid)).toBe(false);
  });

  it('a pipeline process killed while Running: PipelineProcessError, back to Stopped', async () => {
    const dataDir = freshDir();
    const m = await manager(dataDir);
    await m.call('POST', '/v0/pipelines', { name: 'dies', program_code: PROGRAM });
    await m.until('dies', (r) => r['program_status'] === 'Success');
    await m.call('POST', '/v0/pipelines/dies/start');
    await m.until('dies', (r) => r['deployment_status'] === 'Running');
    process.kill(pidOf(dataDir, (await m.get('dies'))['id'] as string), 'SIGKILL');
    await m.until('dies', (r) => r['deployment_status'] === 'Stopped' && r.deployment_error != null);
    expect((await m.get('dies')).deployment_error).toMatchObject({
      error_code: 'PipelineProcessError',
      details: { signal: 'SIGKILL' },
    });
  });

  it('kill -9 of the manager while Running: the restarted manager adopts the process, never a second one', async () => {
    const dataDir = freshDir();
    const first = await manager(dataDir);
    await first.call('POST', '/v0/pipelines', { name: 'adopt', program_code: PROGRAM });
    await first.until('adopt', (r) => r['program_status'] === 'Success');
    await first.call('POST', '/v0/pipelines/adopt/start');
    await first.until('adopt', (r) => r['deployment_status'] === 'Running');
    const id = (await first.get('adopt'))['id'] as string;
    const pid = pidOf(dataDir, id);
    first.svc.child.kill('SIGKILL');
    await first.svc.exited;
    expect(alive(pid)).toBe(true);

    const second = await manager(dataDir);
    await second.svc.waitForLine((l) => message(l) === 'adopted a running pipeline process');
    expect((await second.get('adopt'))['deployment_status']).toBe('Running');
    expect(pidOf(dataDir, id)).toBe(pid);
    expect(pipelineProcesses(dataDir)).toEqual([pid]);
    expect((await second.call('POST', '/v0/pipelines/adopt/pause')).status).toBe(200);
    await second.until('adopt', (r) => r['deployment_status'] === 'Paused', 10_000);
    // A clean stop of the manager stops its pipeline processes.
    second.svc.child.kill('SIGTERM');
    expect(await second.svc.exited).toBe(0);
    await expect.poll(() => alive(pid), { timeout: 20_000 }).toBe(false);
  });

  it('kill -9 of the manager while Provisioning: the restart reaches Running with one process, never two', async () => {
    const dataDir = freshDir();
    const first = await manager(dataDir);
    await first.call('POST', '/v0/pipelines', { name: 'early', program_code: PROGRAM });
    await first.until('early', (r) => r['program_status'] === 'Success');
    const id = (await first.get('early'))['id'] as string;
    await first.call('POST', '/v0/pipelines/early/start');
    // The process exists (its state file is written) but cannot have loaded its engine yet.
    const pid = await firstPid(dataDir, id);
    first.svc.child.kill('SIGKILL');
    await first.svc.exited;

    const second = await manager(dataDir);
    await second.until('early', (r) => r['deployment_status'] === 'Running');
    // The starting process is adopted if it survived; if it died (its program came from the killed
    // manager's artifact server) exactly one new one replaced it.
    const now = pidOf(dataDir, id);
    expect(pipelineProcesses(dataDir)).toEqual([now]);
    if (now !== pid) expect(alive(pid)).toBe(false);
    second.svc.child.kill('SIGTERM');
    expect(await second.svc.exited).toBe(0);
    await expect.poll(() => pipelineProcesses(dataDir), { timeout: 20_000 }).toEqual([]);
  });
});
