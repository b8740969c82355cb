import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  INFO_V1,
  pipelineProcesses as pipelineHarness,
  PROGRAM_V1,
  statusOf,
  stop,
} from '../support/pipeline-process.js';
import { openBackend } from '../support/api-harness.js';
import { alive, apiClient, pidOf, pipelineProcesses, startManagerClient } from '../support/svc-manager.js';
import { message, startReady, type SvcProcess } from '../support/svc-process.js';

// SIGTERM to `svc manager` while clients hold streams open through it: an egress stream (forwarded
// to the pipeline process) and a log follow. The manager's HTTP server waited for them at close,
// and they would only have ended once the pipeline process stopped, which the manager does after
// its server has closed: both processes stayed up until killed. Now the streams end, whole lines
// and a clean end, and the manager stops its pipeline and exits as without them. `svc runner` on
// its own (with api-server and compiler-server, as the Helm chart runs them) had the same hang with
// a follow of its own /logs open. Then the pipeline process on its own: its close must not wait for
// a connection that never carried a request, which fetch leaves behind when it aborts a stream (as
// the manager does at shutdown).

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  // A manager killed above leaves its pipeline processes behind (they would wait for their orphan timeout).
  for (const d of dirs) for (const pid of pipelineProcesses(d)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PROGRAM = 'CREATE TABLE t (x INT PRIMARY KEY);\nCREATE VIEW v AS SELECT x FROM t;';
/** The bound on an exit after SIGTERM (it takes a second or two; it hung before). */
const EXIT_BOUND_MS = 15_000;

/** A streamed response read as it comes: the text so far, and how it ended (its reader failed on a reset). */
function reading(res: Response) {
  const got = { text: '' };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async (): Promise<'end' | 'broken'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'end';
        got.text += decoder.decode(value, { stream: true });
      }
    } catch {
      return 'broken';
    }
  })();
  return { got, ended };
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timed out'> =>
  Promise.race([p, new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms).unref())]);

/**
 * SIGTERM to `svc manager` or `svc runner` with `streams` open: it exits 0 within the bound, each
 * client saw its response end (not a reset) after a whole line, and the pipeline process it ran was
 * stopped on the way out, as without a stream open.
 */
async function stopsCleanly(
  svc: SvcProcess,
  command: 'manager' | 'runner',
  streams: Array<ReturnType<typeof reading>>,
  pipeline: { pid: number; dataDir: string },
): Promise<void> {
  svc.child.kill('SIGTERM');
  expect(await within(svc.exited, EXIT_BOUND_MS)).toBe(0);
  expect(svc.lines.some((l) => message(l) === `svc ${command} stopped`)).toBe(true);
  for (const stream of streams) {
    expect(await stream.ended).toBe('end');
    expect(stream.got.text.endsWith('\n')).toBe(true);
  }
  await expect.poll(() => alive(pipeline.pid), { timeout: 5_000 }).toBe(false);
  expect(pipelineProcesses(pipeline.dataDir)).toEqual([]);
}

describe('svc manager shutdown with streams open', { timeout: 180_000 }, () => {
  it('SIGTERM ends an open egress stream and log follow, stops the pipeline process, exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    expect((await m.call('POST', '/v0/pipelines', { name: 's', program_code: PROGRAM })).status).toBe(201);
    await m.until('s', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/s/start')).status).toBe(202);
    await m.until('s', (r) => r['deployment_status'] === 'Running');
    const pid = pidOf(dataDir, (await m.get('s'))['id'] as string);

    const egress = await fetch(`${m.url}/v0/pipelines/s/egress/v?format=json`, { method: 'POST' });
    expect(egress.status).toBe(200);
    const stream = reading(egress);
    const logs = await fetch(`${m.url}/v0/pipelines/s/logs`);
    expect(logs.status).toBe(200);
    const follow = reading(logs);
    // Data flows through the stream before the signal: a change to the view arrives on it.
    const ingress = await fetch(`${m.url}/v0/pipelines/s/ingress/t?format=json&update_format=raw`, {
      method: 'POST',
      body: '{"x":1}',
    });
    expect(ingress.status).toBe(200);
    await expect.poll(() => stream.got.text.includes('json_data'), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => follow.got.text.includes('pipeline initialization complete')).toBe(true);

    await stopsCleanly(m.svc, 'manager', [stream, follow], { pid, dataDir });
    for (const line of stream.got.text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('svc runner shutdown with a log follow open', { timeout: 180_000 }, () => {
  it("SIGTERM ends a follow of the runner's own /logs, stops the pipeline process, exits 0", async () => {
    const { url: databaseUrl, drop, db } = await openBackend('postgres');
    await db.close();
    // Apart, so that the clean-up above finds a pipeline process the runner left (its data dir's).
    const compilerDir = mkdtempSync(join(tmpdir(), 'svc-shutdown-compiler-'));
    const runnerDir = mkdtempSync(join(tmpdir(), 'svc-shutdown-runner-'));
    dirs.push(compilerDir, runnerDir);
    try {
      const common = ['--port', '0', '--database-url', databaseUrl as string];
      const compiler = await startReady(
        ['compiler-server', '--data-dir', compilerDir, ...common],
        'svc compiler-server ready at',
        procs,
      );
      const runner = await startReady(
        ['runner', '--backend', 'local', '--compiler-url', compiler.url, '--data-dir', runnerDir, ...common],
        'svc runner ready',
        procs,
      );
      const api = await startReady(
        ['api-server', '--runner-url', runner.url, ...common],
        'svc manager ready at',
        procs,
      );
      const m = apiClient(api.url);
      expect((await m.call('POST', '/v0/pipelines', { name: 'r', program_code: PROGRAM })).status).toBe(201);
      await m.until('r', (r) => r['program_status'] === 'Success');
      expect((await m.call('POST', '/v0/pipelines/r/start')).status).toBe(202);
      await m.until('r', (r) => r['deployment_status'] === 'Running');
      const id = (await m.get('r'))['id'] as string;
      const pid = pidOf(runnerDir, id);

      // The runner's own endpoint (what `svc api-server --runner-url` relays).
      const logs = await fetch(`${runner.url}/v0/pipelines/${id}/logs?follow=true`);
      expect(logs.status).toBe(200);
      const follow = reading(logs);
      await expect.poll(() => follow.got.text.includes('pipeline initialization complete')).toBe(true);

      await stopsCleanly(runner.svc, 'runner', [follow], { pid, dataDir: runnerDir });
      for (const p of [api, compiler]) p.svc.child.kill('SIGTERM');
      expect(await Promise.all([api, compiler].map((p) => p.svc.exited))).toEqual([0, 0]);
    } finally {
      await drop();
    }
  });
});

const h = pipelineHarness();

describe('svc pipeline shutdown with an egress stream and an unused connection open', () => {
  it('SIGTERM ends the stream cleanly and exits 0 at once', async () => {
    const artifact = await h.writeArtifact(PROGRAM_V1, INFO_V1);
    const config = await h.writeConfig('unused', {
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: join(h.dir, 'unused-storage'),
    });
    const p = await h.startPipeline(config, 'running');
    await expect.poll(() => statusOf(p.url), { timeout: 60_000 }).toBe('Running');
    const egress = await fetch(`${p.url}/egress/v`, { method: 'POST' });
    expect(egress.status).toBe(200);
    const stream = reading(egress);
    await expect.poll(() => stream.got.text.length > 0).toBe(true);
    // A connection with no request on it: Node's server.close() counts it as active and waited for it.
    const unused = connect(Number(new URL(p.url).port), '127.0.0.1');
    unused.on('error', () => undefined);
    await new Promise((resolve) => unused.once('connect', resolve));

    expect(await within(stop(p.proc), EXIT_BOUND_MS)).toBe(0);
    expect(await stream.ended).toBe('end');
    unused.destroy();
  });
});
