import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidOf, pipelineProcesses, type Rec, startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// Issue 4: 50 pipelines started and stopped at once through the HTTP API of a real `svc manager`,
// each a real `svc pipeline` child process (~250 MiB each: 50 fit in memory on the 24 GiB machine).

const COUNT = 50;
const procs: SvcProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'svc-many-'));
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  // Whatever a failed run left behind is killed too: the next suites need the memory.
  for (const pid of pipelineProcesses(dataDir)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const names = Array.from({ length: COUNT }, (_, i) => `many-${String(i).padStart(2, '0')}`);

describe(`${COUNT} pipelines at once (local backend)`, { timeout: 600_000 }, () => {
  it('all start, each in exactly one process of its own, all stop, no process is left', async () => {
    const m = await startManagerClient(dataDir, procs);
    const list = async (): Promise<Rec[]> =>
      ((await m.call('GET', '/v0/pipelines?selector=status')).body as unknown as Rec[]).filter((r) =>
        names.includes(r['name'] as string),
      );
    // The pipelines not there yet, with their status and error (or missing): what a failure shows.
    const notYet = async (pred: (r: Rec) => boolean): Promise<string[]> => {
      const rows = await list();
      const missing = names.filter((n) => !rows.some((r) => r['name'] === n)).map((n) => `${n} missing`);
      const status = (r: Rec) =>
        [r['name'], r['program_status'], r['deployment_status'], JSON.stringify(r['deployment_error'] ?? null)].join(
          ' ',
        );
      return [...missing, ...rows.filter((r) => !pred(r)).map(status)];
    };
    const allAre = (pred: (r: Rec) => boolean) =>
      expect.poll(() => notYet(pred), { timeout: 480_000, interval: 500 }).toEqual([]);

    const created = await Promise.all(
      names.map((name) =>
        m.call('POST', '/v0/pipelines', {
          name,
          // The local backend starts 2 × cores processes at a time (StartSlots) and the rest wait
          // in line still Stopped, so the provisioning timeout measures a start, not the queue. It
          // is 60 s here, not the default 20: beside the cluster suite on 2 cores, one of 50 starts
          // took longer (CI on 2026-11-29: 49 Running after 8 minutes).
          program_code: 'CREATE TABLE t (x INT);',
          runtime_config: { provisioning_timeout_secs: 60 },
        }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(names.map(() => 201));
    await allAre((r) => r['program_status'] === 'Success');

    const started = await Promise.all(names.map((name) => m.call('POST', `/v0/pipelines/${name}/start`)));
    expect(started.map((s) => s.status)).toEqual(names.map(() => 202));
    await allAre((r) => r['deployment_status'] === 'Running');
    const running = await list();
    expect(running.filter((r) => r.deployment_error != null)).toEqual([]);

    // One process per pipeline: the pids the backend recorded are distinct, alive, and are exactly
    // the `svc pipeline` processes of this data dir that /proc shows; each runs its own deployment.
    const ids = running.map((r) => r['id'] as string);
    const pids = ids.map((id) => pidOf(dataDir, id));
    expect(new Set(pids).size).toBe(COUNT);
    expect(pipelineProcesses(dataDir).sort()).toEqual([...pids].sort());
    for (const r of running) {
      const cmdline = readFileSync(`/proc/${pidOf(dataDir, r['id'] as string)}/cmdline`, 'utf8');
      expect(cmdline).toContain(r['deployment_id'] as string);
    }

    const stopped = await Promise.all(names.map((name) => m.call('POST', `/v0/pipelines/${name}/stop?force=true`)));
    expect(stopped.map((s) => s.status)).toEqual(names.map(() => 202));
    await allAre((r) => r['deployment_status'] === 'Stopped');
    expect((await list()).filter((r) => r.deployment_error != null)).toEqual([]);
    // Stopped is written only once the backend saw its process gone.
    expect(pipelineProcesses(dataDir)).toEqual([]);

    m.svc.child.kill('SIGTERM');
    expect(await m.svc.exited).toBe(0);
  });
});
