import { randomUUID } from 'node:crypto';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startArtifactServer } from '../../src/compiler/artifact-server.js';
import { createLogger } from '../../src/logging/logger.js';
import {
  call,
  INFO_V1,
  INFO_V2,
  type Json,
  pipelineProcesses,
  PROGRAM_V1,
  PROGRAM_V2,
  statusOf,
  stop,
  transitions,
} from '../support/pipeline-process.js';
import { message, startSvc } from '../support/svc-process.js';

// `svc pipeline` as the runner starts it: the built program as a child process, an artifact on disk,
// a deployment config file, its storage directory (test/support/pipeline-process.ts). Waits are on
// log lines and expect.poll.

/** A checkpoint file's lines, each parsed (src/pipeline/checkpoint-file.ts). */
const checkpointLines = async (path: string): Promise<unknown[]> =>
  (await readFile(path, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);

const h = pipelineProcesses();
const { writeArtifact, writeConfig, startPipeline } = h;

describe('svc pipeline', () => {
  it('a bad config file exits 1 with a clear error line', async () => {
    const path = join(h.dir, 'bad.json');
    await writeFile(path, JSON.stringify({ pipeline_name: 'x' }));
    const proc = startSvc(['pipeline', '--config-file', path, '--port', '0', '--initial', 'paused']);
    expect(await proc.exited).toBe(1);
    const line = proc.lines.find((l) => message(l).includes('invalid deployment config'));
    expect(line?.['level']).toBe('ERROR');
    expect(message(line ?? {})).toContain('pipeline_id');
  });

  it('pin_cpus short of twice workers: accepted, with a warning in its log (pinning may not be honored)', async () => {
    const artifact = await writeArtifact(PROGRAM_V1, INFO_V1);
    const configFile = await writeConfig('pins', {
      pipeline_id: randomUUID(),
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: join(h.dir, 'storage-pins'),
      runtime_config: { workers: 2, pin_cpus: [0, 1, 2] },
    });
    const { proc } = await startPipeline(configFile, 'paused');
    const warning = proc.lines.find((l) => message(l).startsWith('pin_cpus lists 3 CPU(s)'));
    expect(warning?.['level']).toBe('WARN');
    expect(message(warning ?? {})).toContain('pinning may not be honored');
    expect(warning?.['pipeline-name']).toBe('pins');
    expect(await stop(proc)).toBe(0);
  });

  it(
    'runs, checkpoints, suspends, then replays the same storage; the clock is HTTP-driven',
    { timeout: 180_000 },
    async () => {
      const v1 = await writeArtifact(PROGRAM_V1, INFO_V1);
      const storage = join(h.dir, 'storage-main');
      const pipeline_id = randomUUID();
      const configFile = await writeConfig('main', {
        pipeline_id,
        binary_ref: v1.path,
        program_info_ref: v1.infoPath,
        storage_path: storage,
        runtime_config: { workers: 3, dev_tweaks: { now_http_driven: true, now_offset: '2001-02-03T04:05:06Z' } },
      });
      const { proc, url, startupMs } = await startPipeline(configFile, 'paused');
      const done = await proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      console.log(
        `start-up (spawn → Paused): ${startupMs} ms to listening, ${String((done['fields'] as Json)['uptime_ms'])} ms in-process to initial status`,
      );
      expect(done).toMatchObject({ 'svc-service': 'pipeline', 'pipeline-name': 'main', 'pipeline-id': pipeline_id });
      expect(transitions(proc)).toEqual(['Paused']); // from Initializing: a fresh start
      expect(proc.lines.find((l) => message(l) === 'runtime status changed from Initializing to Paused')).toBeDefined();

      expect((await call(url, 'GET', '/status')).body).toEqual({
        runtime_status: 'Paused',
        runtime_status_details: { connector_stats: { num_errors: 0 } },
        runtime_desired_status: 'Paused',
        storage_status_details: { checkpoints: [] },
      });
      expect((await call(url, 'POST', '/start')).body['runtime_status']).toBe('Running');
      expect((await call(url, 'POST', '/pause')).body['runtime_status']).toBe('Paused');
      expect(await statusOf(url)).toBe('Paused');
      const illegal = await call(url, 'POST', '/activate?initial=running');
      expect(illegal.status).toBe(400);
      expect(illegal.body).toMatchObject({
        error_code: 'IllegalRuntimeTransition',
        details: { from: 'Paused', to: 'Running' },
      });
      expect((await call(url, 'POST', '/approve')).status).toBe(400);

      // Clock: the offset is NOW() at a fresh start; it moves only forward and only on request.
      const advanced = await call(url, 'POST', '/clock/advance', { delta_ms: 1500 });
      expect(advanced.body).toEqual({
        now_ms: Date.parse('2001-02-03T04:05:07.500Z'),
        now: '2001-02-03T04:05:07.500Z',
      });
      const back = await call(url, 'POST', '/clock/advance', { delta_ms: -1 });
      expect(back.status).toBe(400);
      expect(back.body['error_code']).toBe('InvalidClockAdvance');

      // Checkpoint: a whole file on disk, listed in /status.
      const cp1 = await call(url, 'POST', '/checkpoint');
      expect(cp1.status).toBe(200);
      const id = String(cp1.body['checkpoint_id']);
      const files = await readdir(join(storage, 'checkpoints'));
      expect(files.filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
      expect(files.some((f) => f.endsWith('.tmp'))).toBe(false);
      // JSON lines: what it is, then a line a page of rows (t is empty: none), then the last line.
      const onDisk = await checkpointLines(join(storage, 'checkpoints', files[0] ?? ''));
      expect(onDisk).toEqual([
        expect.objectContaining({
          svc_checkpoint: 2,
          id,
          program_checksum: v1.source_checksum,
          now_ms: Date.parse('2001-02-03T04:05:07.500Z'),
        }),
        { end: { rows: 0, connectors: {}, sha256: expect.any(String) as unknown } },
      ]);
      const listed = (await call(url, 'GET', '/status')).body['storage_status_details'] as { checkpoints: Json[] };
      expect(listed.checkpoints.map((c) => c['id'])).toEqual([id]);

      const stats = (await call(url, 'GET', '/stats')).body;
      expect(stats).toMatchObject({
        global_metrics: { runtime_status: 'Paused', workers: 3 },
        tables: { t: { rows: 0 } },
        connector_stats: { num_errors: 0 },
      });
      expect((await call(url, 'GET', '/stats/errors')).body).toEqual({ text: '[]' });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('svc_pipeline_runtime_status{status="Paused"} 1');
      expect(metrics).toContain('svc_pipeline_table_rows{table="t"} 0');
      const notFound = await call(url, 'GET', '/');
      expect(notFound.status).toBe(404);
      expect(notFound.body).toMatchObject({ error_code: 'NotFound' });

      const suspended = await call(url, 'POST', '/suspend');
      expect(suspended.body).toMatchObject({ runtime_status: 'Suspended', runtime_desired_status: 'Suspended' });
      expect((await call(url, 'POST', '/start')).status).toBe(400);
      expect(await stop(proc)).toBe(0);

      // Rows the next run must restore: a later checkpoint of the same program, as an earlier version
      // of svc wrote it (one JSON object), which this one still reads.
      const journaled = Date.parse('2001-02-03T05:00:00Z');
      const rows = {
        t: [
          { id: 1, name: 'one' },
          { id: 2, name: null },
        ],
      };
      await writeFile(
        join(storage, 'checkpoints', `${String(Date.now() + 1000)}-${randomUUID()}.json`),
        JSON.stringify({
          id: randomUUID(),
          created_at: new Date().toISOString(),
          program_checksum: v1.source_checksum,
          now_ms: journaled,
          tables: rows,
        }),
      );
      // A half-written leftover of a crash is ignored and removed.
      await writeFile(join(storage, 'checkpoints', 'x.json.1234.tmp'), '{"id":');

      // Resume with a different offset: the journaled NOW() wins (seed 2.6.1, offset → offset).
      const again = await writeConfig('main', {
        pipeline_id,
        binary_ref: v1.path,
        program_info_ref: v1.infoPath,
        storage_path: storage,
        runtime_config: { dev_tweaks: { now_http_driven: true, now_offset: '1999-01-01T00:00:00Z' } },
      });
      const second = await startPipeline(again, 'running');
      await second.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      expect(transitions(second.proc)).toEqual(['Replaying', 'Running']);
      const resumed = await second.proc.waitForLine((l) => message(l).startsWith('resumed from checkpoint'));
      expect(resumed).toMatchObject({ fields: { restored: { t: 2 }, staged: {} } });
      const restored = (await call(second.url, 'GET', '/stats')).body;
      expect(restored).toMatchObject({ tables: { t: { rows: 2 } }, global_metrics: { now_ms: journaled } });
      expect((await call(second.url, 'POST', '/clock/advance', { delta_ms: 0 })).body['now_ms']).toBe(journaled);
      expect(await readdir(join(storage, 'checkpoints'))).not.toContain('x.json.1234.tmp');
      const cp2 = await call(second.url, 'POST', '/checkpoint');
      const latest = (await readdir(join(storage, 'checkpoints'))).sort().at(-1) ?? '';
      expect(latest.endsWith('.jsonl')).toBe(true);
      expect(await checkpointLines(join(storage, 'checkpoints', latest))).toEqual([
        expect.objectContaining({ id: cp2.body['checkpoint_id'] }),
        { section: 'table', name: 't', rows: expect.arrayContaining(rows.t) as unknown },
        {
          section: 'view',
          name: 'v',
          rows: expect.arrayContaining([
            expect.objectContaining({ id: 1 }),
            expect.objectContaining({ id: 2 }),
          ]) as unknown,
        },
        { end: { rows: 2, connectors: {}, sha256: expect.any(String) as unknown } },
      ]);
      expect(await stop(second.proc)).toBe(0);
    },
  );

  it(
    'a changed program: reject is fatal, await_approval waits for /approve, allow bootstraps',
    { timeout: 180_000 },
    async () => {
      const v1 = await writeArtifact(PROGRAM_V1, INFO_V1);
      const v2 = await writeArtifact(PROGRAM_V2, INFO_V2);
      const base = join(h.dir, 'storage-v1');
      await mkdir(join(base, 'checkpoints'), { recursive: true });
      await writeFile(
        join(base, 'checkpoints', `${String(Date.now())}-${randomUUID()}.json`),
        JSON.stringify({
          id: randomUUID(),
          created_at: new Date().toISOString(),
          program_checksum: v1.source_checksum,
          now_ms: 0,
          tables: { t: [{ id: 7, name: 'seven' }] },
        }),
      );
      const storageFor = async (policy: string) => {
        const path = join(h.dir, `storage-${policy}`);
        await cp(base, path, { recursive: true });
        return path;
      };
      const configFor = async (policy: 'allow' | 'reject' | 'await_approval') =>
        writeConfig(`changed-${policy}`, {
          binary_ref: v2.path,
          program_info_ref: v2.infoPath,
          storage_path: await storageFor(policy),
          bootstrap_policy: policy,
          // One of them keeps its views on the PGlite path (docs/engine.md).
          ...(policy === 'await_approval' ? { runtime_config: { dev_tweaks: { native_engine: false } } } : {}),
        });
      // Three processes at once: each loads its own engine.
      const [rejected, awaiting, allowed] = await Promise.all([
        configFor('reject').then((f) => startPipeline(f, 'running')),
        configFor('await_approval').then((f) => startPipeline(f, 'paused')),
        configFor('allow').then((f) => startPipeline(f, 'running')),
      ]);

      await expect.poll(async () => (await call(rejected.url, 'GET', '/status')).status, { timeout: 60_000 }).toBe(500);
      const fatal = await call(rejected.url, 'GET', '/status');
      expect(fatal.body).toMatchObject({
        error_code: 'BootstrapRejected',
        details: { checkpoint_program_checksum: v1.source_checksum, program_checksum: v2.source_checksum },
      });
      expect(typeof fatal.body['message']).toBe('string');

      await expect.poll(() => statusOf(awaiting.url), { timeout: 60_000 }).toBe('AwaitingApproval');
      expect((await call(awaiting.url, 'POST', '/start')).body['runtime_desired_status']).toBe('Running');
      expect(await statusOf(awaiting.url)).toBe('AwaitingApproval');
      expect((await call(awaiting.url, 'POST', '/approve')).status).toBe(200);
      await expect.poll(() => statusOf(awaiting.url), { timeout: 60_000 }).toBe('Running');
      expect(transitions(awaiting.proc)).toEqual(['AwaitingApproval', 'Bootstrapping', 'Running']);
      expect((await call(awaiting.url, 'GET', '/stats')).body['views']).toEqual({
        w: { maintenance: 'recompute', reason: expect.stringContaining('not native: the native path is switched off') },
      });
      // Its start-up says the native engine is off, not how many threads native views would run on.
      const said = awaiting.proc.lines.map((l) => message(l));
      expect(said).toContain('native engine switched off (dev_tweaks.native_engine): PGlite keeps every view');
      expect(said.filter((m) => m.startsWith('native views run on'))).toEqual([]);
      expect(allowed.proc.lines.map((l) => message(l)).filter((m) => m.startsWith('native views run on'))).toHaveLength(
        1,
      );

      await allowed.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      expect(transitions(allowed.proc)).toEqual(['Bootstrapping', 'Running']);
      // The rows of t still fit the changed table (the new column is NULL).
      expect((await call(allowed.url, 'GET', '/stats')).body).toMatchObject({
        tables: { t: { rows: 1 } },
        views: { w: { maintenance: 'native', reason: null } },
      });
      const maintained = allowed.proc.lines.find((l) => message(l) === 'view w is maintained by native');
      expect(maintained).toBeDefined();
      // Without dev_tweaks.now_http_driven the clock is not for the taking.
      const refused = await call(allowed.url, 'POST', '/clock/advance', { delta_ms: 1 });
      expect(refused.status).toBe(400);
      expect(refused.body['error_code']).toBe('InvalidClockAdvance');

      for (const p of [rejected, awaiting, allowed]) expect(await stop(p.proc)).toBe(0);
    },
  );

  it(
    'standby: /activate, artifact by URL, runtime_config.logging as the level filter',
    { timeout: 120_000 },
    async () => {
      const v1 = await writeArtifact(PROGRAM_V1, INFO_V1);
      const server = await startArtifactServer({
        dataDir: h.dir,
        host: '127.0.0.1',
        port: 0,
        log: createLogger({ service: 'compiler-server', json: true, level: 'silent' }),
      });
      const at = `${randomUUID()}/1/${v1.source_checksum}/${v1.integrity_checksum}`;
      const configFile = await writeConfig('standby', {
        binary_ref: `${server.url}/binary/${at}`,
        program_info_ref: `${server.url}/program_info/${at}`,
        storage_path: join(h.dir, 'storage-standby'),
        runtime_config: { logging: 'debug', env: { FOO: 'bar' }, fault_tolerance: { checkpoint_interval_secs: 1 } },
      });
      const { proc, url } = await startPipeline(configFile, 'standby');
      await proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      expect(await statusOf(url)).toBe('Standby');
      expect((await call(url, 'POST', '/pause')).body['runtime_status']).toBe('Paused');
      expect((await call(url, 'POST', '/activate?initial=running')).status).toBe(400);
      await call(url, 'GET', '/status');
      // debug lines (one per request) appear only because runtime_config.logging asked for them.
      await expect.poll(() => proc.lines.some((l) => l['level'] === 'DEBUG' && message(l) === 'request')).toBe(true);
      // fault_tolerance: automatic checkpoints while Paused.
      await expect
        .poll(
          async () =>
            ((await call(url, 'GET', '/status')).body['storage_status_details'] as { checkpoints: unknown[] })
              .checkpoints.length,
          { timeout: 20_000 },
        )
        .toBeGreaterThan(0);
      expect(await stop(proc)).toBe(0);
      await server.close();
    },
  );
});

describe('orphan watchdog', () => {
  it('stays up while a runner asks for its status, stops by itself (exit 0) once nobody does', async () => {
    const artifact = await writeArtifact(PROGRAM_V1, INFO_V1);
    const config = await writeConfig('orphan', {
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: join(h.dir, 'orphan-storage'),
    });
    const p = await startPipeline(config, 'running', ['--orphan-timeout-secs', '3']);
    await expect.poll(() => statusOf(p.url), { timeout: 60_000 }).toBe('Running');
    // Asked every 0.5 s for 6 s, twice the timeout: still there.
    for (let i = 0; i < 12; i++) {
      expect((await call(p.url, 'GET', '/status')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(p.proc.child.exitCode).toBeNull();
    // Nobody asks any more: it stops by itself, through the normal shutdown.
    expect(await p.proc.exited).toBe(0);
    expect(p.proc.lines.some((l) => message(l).includes('the runner is gone'))).toBe(true);
  });
});

describe('shutdown with an egress stream open', () => {
  it('SIGTERM ends the open stream cleanly and the process exits 0 by itself', async () => {
    const artifact = await writeArtifact(PROGRAM_V1, INFO_V1);
    const config = await writeConfig('listened', {
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: join(h.dir, 'listened-storage'),
    });
    const p = await startPipeline(config, 'running');
    await expect.poll(() => statusOf(p.url), { timeout: 60_000 }).toBe('Running');
    const stream = await fetch(`${p.url}/egress/v`, { method: 'POST' });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    // The stream is open once its first chunk arrived.
    expect((await reader.read()).done).toBe(false);
    const exited = stop(p.proc);
    // Before, the server's close waited for this request until its reader left: the process hung
    // until the runner's SIGKILL (10 s later), and the reader saw a reset, not an end.
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(await exited).toBe(0);
  });
});
