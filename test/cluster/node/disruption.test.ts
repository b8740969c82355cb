import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { byKind, render } from '../../chart/helm.js';
import { client, type Json, type RunnerWorld } from '../../kubernetes/harness.js';
import { isGone } from '../helpers.js';
import { sortedIds, steadyIngress, tableIds } from './steady-ingress.js';
import { NODE, startRealNodeWorld } from './world.js';

// Issue 29 on the real node: the disruptions an operator causes or suffers. `kubectl drain` of the
// node (cordon, then the eviction API, which honours the chart's PodDisruptionBudget) under steady
// ingress: the pipeline is Unavailable, not failed, while its pod waits for a node, and after
// `kubectl uncordon` it resumes from the checkpoint its SIGTERM wrote, holding everything acknowledged.
// A lost pod that waits for a node longer than the runner's --pod-reschedule-grace-secs fails the
// pipeline (deployment_error Unschedulable), as the first-start grace would have at once before.
// And a container the kernel keeps OOM-killing: each kill is a tolerated restart until one more than
// the runner's limit, then deployment_error naming OOMKilled, and Stopped.

const PROGRAM = `CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');`;
/** Each id of t times each id twice more: 300 rows make 27,000,000, far past the pod's memory limit. */
const CUBE =
  `${PROGRAM}\n` + 'CREATE MATERIALIZED VIEW cube AS SELECT a.id AS x, b.id AS y, c.id AS z FROM t a, t b, t c;';
/** The runner's --pod-restart-limit here (default 5): fewer OOM kills to wait for. */
const RESTART_LIMIT = 2;
/**
 * The runner's --unschedulable-grace-secs here (default 60): the drained pipeline's pod waits for a
 * node well past it, and must not fail, since --pod-reschedule-grace-secs (default 1800) bounds that wait.
 */
const FIRST_START_GRACE_SECS = 5;
/**
 * The runner's --pod-reschedule-grace-secs here (default 1800): the drain's wait (about 3 times
 * FIRST_START_GRACE_SECS) stays well within it, the stranded pipeline's goes past it.
 */
const RESCHEDULE_GRACE_SECS = 45;

const run = promisify(execFile);
/** kubectl as a child process (not spawnSync: the steady ingress must keep going meanwhile). */
async function kubectl(args: readonly string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', inject('kubeconfig'), ...args]);
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** The chart's pipelineDisruptionBudget as helm renders it for this namespace. */
function chartBudget(namespace: string, maxUnavailable: number): k8s.V1PodDisruptionBudget {
  const set = ['pipelineDisruptionBudget.enabled=true', `pipelineDisruptionBudget.maxUnavailable=${maxUnavailable}`];
  const [budget] = byKind(render({ set }, 'rel', namespace), 'PodDisruptionBudget');
  expect(budget).toBeDefined();
  return budget as unknown as k8s.V1PodDisruptionBudget;
}

let world: RunnerWorld;
beforeAll(async () => {
  ({ world } = await startRealNodeWorld('real-disrupt', {}, [
    ...['--pod-restart-limit', String(RESTART_LIMIT)],
    ...['--unschedulable-grace-secs', String(FIRST_START_GRACE_SECS)],
    ...['--pod-reschedule-grace-secs', String(RESCHEDULE_GRACE_SECS)],
  ]));
}, 300_000);
afterAll(async () => world?.close());

describe('real node: drain and OOM kills', { timeout: 600_000 }, () => {
  it('kubectl drain honours the PodDisruptionBudget; after uncordon the pipeline resumes with everything acknowledged', async () => {
    const api = client(world);
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const policy = world.admin.makeApiClient(k8s.PolicyV1Api);
    const namespace = world.namespace;
    const created = await api.create('drained', { fault_tolerance: { checkpoint_interval_secs: 3600 } }, PROGRAM);
    const id = String(created['id']);
    const pod = `pipeline-${id}-0`;
    expect((await api.call('POST', '/v0/pipelines/drained/start')).status).toBe(202);
    const before = await api.until('drained', (p) => p['deployment_status'] === 'Running', 300_000);
    const url = `${world.api}/v0/pipelines/drained`;
    const ingress = steadyIngress(url);
    await expect.poll(() => ingress.acknowledged.length, { timeout: 60_000 }).toBeGreaterThan(20);
    const uid = (await core.readNamespacedPod({ name: pod, namespace })).metadata?.uid;
    // --delete-emptydir-data: the pod's /tmp is an emptyDir (its state is on the claim, which stays).
    const drain = [
      'drain',
      NODE,
      '--pod-selector',
      `svc/pipeline-id=${id}`,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
    ];

    const name = String(chartBudget(namespace, 0).metadata?.name);
    try {
      // maxUnavailable 0: the eviction is refused, the drain gives up, the pipeline runs on undisturbed.
      await policy.createNamespacedPodDisruptionBudget({ namespace, body: chartBudget(namespace, 0) });
      const refused = await kubectl([...drain, '--timeout', '20s']);
      expect(refused.code, refused.out).not.toBe(0);
      expect(refused.out).toContain('disruption budget');
      expect((await core.readNamespacedPod({ name: pod, namespace })).metadata?.uid).toBe(uid);
      const still = await api.get('drained');
      expect(still['deployment_status']).toBe('Running');
      expect(still['deployment_status_since']).toBe(before['deployment_status_since']);

      // The chart's default (maxUnavailable 1): the eviction goes through once the budget allows it.
      const budget = chartBudget(namespace, 1);
      const current = await policy.readNamespacedPodDisruptionBudget({ name, namespace });
      await policy.replaceNamespacedPodDisruptionBudget({ name, namespace, body: { ...current, spec: budget.spec } });
      await expect
        .poll(
          async () => (await policy.readNamespacedPodDisruptionBudget({ name, namespace })).status?.disruptionsAllowed,
          { timeout: 60_000 },
        )
        .toBe(1);
      const drained = await kubectl([...drain, '--timeout', '180s']);
      expect(drained.code, drained.out).toBe(0);
      expect(drained.out).toContain(`evicting pod ${namespace}/${pod}`);

      // The StatefulSet's new pod has no node to go to: the pipeline waits Unavailable, without an error.
      const unschedulable = async () => {
        const p = await core.readNamespacedPod({ name: pod, namespace }).catch(() => undefined);
        const scheduled = p?.status?.conditions?.find((c) => c.type === 'PodScheduled');
        return p?.metadata?.uid !== uid && scheduled?.reason === 'Unschedulable' ? scheduled : undefined;
      };
      await expect
        .poll(async () => (await unschedulable())?.message, { timeout: 120_000, interval: 500 })
        .toContain('unschedulable');
      const waiting = await api.until('drained', (p) => p['deployment_status'] === 'Unavailable', 60_000);
      expect(waiting['deployment_error'] ?? null).toBeNull();
      // Well past the first-start grace (3 times it, several looks of the runner): still waiting, no
      // error, and the runner said once why and for how long (an Event and a log line).
      const waited = async () => {
        const record = await api.get('drained');
        if (record['deployment_error']) return `failed: ${JSON.stringify(record['deployment_error'])}`;
        const since = (await unschedulable())?.lastTransitionTime;
        const secs = since ? (Date.now() - new Date(since).getTime()) / 1000 : 0;
        return secs > 3 * FIRST_START_GRACE_SECS ? 'waited' : 'waiting';
      };
      await expect.poll(waited, { timeout: 120_000, interval: 1_000 }).toBe('waited');
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // the runner's next look at it
      const later = await api.get('drained');
      expect(later['deployment_status']).toBe('Unavailable');
      expect(later['deployment_error'] ?? null).toBeNull();
      const told = await core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=pipeline-${id},reason=PipelinePodUnschedulable`,
      });
      expect(told.items.map((e) => e.message)).toEqual([
        expect.stringContaining(
          `the pipeline stays Unavailable for up to ${RESCHEDULE_GRACE_SECS} s (--pod-reschedule-grace-secs)`,
        ),
      ]);
    } finally {
      // The node is every real-node test's: never leave it cordoned.
      const uncordoned = await kubectl(['uncordon', NODE]);
      expect(uncordoned.code, uncordoned.out).toBe(0);
    }
    const back = await api.until(
      'drained',
      (p) => p['deployment_status'] === 'Running' && p['deployment_status_since'] !== before['deployment_status_since'],
      300_000,
    );
    await ingress.stop();
    expect(back['deployment_error'] ?? null).toBeNull();
    expect(back['deployment_id']).toBe(before['deployment_id']);
    // Rows acknowledged before the drain survive only through the checkpoint written at SIGTERM
    // (the periodic one is an hour away); those sent while no pod ran were refused, not acknowledged.
    expect(await tableIds(url)).toEqual(sortedIds(ingress.acknowledged));
    const events = await core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=pipeline-${id},reason=PipelinePodLost`,
    });
    expect(events.items).toHaveLength(1);
    await policy.deleteNamespacedPodDisruptionBudget({ name, namespace });
    expect((await api.call('POST', '/v0/pipelines/drained/stop?force=true')).status).toBe(202);
    await api.until('drained', (p) => p['deployment_status'] === 'Stopped', 300_000);
  });

  it(`a lost pod that waits for a node past --pod-reschedule-grace-secs ${RESCHEDULE_GRACE_SECS}: deployment_error Unschedulable, Stopped`, async () => {
    const api = client(world);
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const namespace = world.namespace;
    const id = String((await api.create('stranded', { fault_tolerance: {} }, PROGRAM))['id']);
    const pod = `pipeline-${id}-0`;
    expect((await api.call('POST', '/v0/pipelines/stranded/start')).status).toBe(202);
    await api.until('stranded', (p) => p['deployment_status'] === 'Running', 300_000);
    let failed: Json;
    try {
      const cordoned = await kubectl(['cordon', NODE]);
      expect(cordoned.code, cordoned.out).toBe(0);
      await core.deleteNamespacedPod({ name: pod, namespace });
      await api.until('stranded', (p) => p['deployment_status'] === 'Unavailable', 120_000);
      failed = await api.until('stranded', (p) => p['deployment_error'] != null, 300_000);
    } finally {
      const uncordoned = await kubectl(['uncordon', NODE]);
      expect(uncordoned.code, uncordoned.out).toBe(0);
    }
    expect(failed['deployment_error']).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', name: pod, reason: 'Unschedulable' },
    });
    expect(String(((failed['deployment_error'] as Json)['details'] as Json)['message'])).toContain('unschedulable');
    await api.until('stranded', (p) => p['deployment_status'] === 'Stopped', 180_000);
    const reasons = (
      await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=pipeline-${id}` })
    ).items.map((e) => e.reason);
    expect(reasons.filter((r) => r === 'PipelinePodLost')).toHaveLength(1);
    expect(reasons.filter((r) => r === 'PipelinePodUnschedulable')).toHaveLength(1);
  });

  it(`OOM kills past --pod-restart-limit ${RESTART_LIMIT}: each a tolerated restart, then deployment_error OOMKilled`, async () => {
    const api = client(world);
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const namespace = world.namespace;
    // A heap limit above the pod's memory limit, so the kernel's OOM killer (the cgroup's limit)
    // stops the process, not V8's own heap limit.
    const config = {
      fault_tolerance: { checkpoint_interval_secs: 3600 },
      resources: { memory_mb_max: 400 },
      env: { NODE_OPTIONS: '--max-old-space-size=4096' },
    };
    const id = String((await api.create('oomloop', config, CUBE))['id']);
    const pod = `pipeline-${id}-0`;
    expect((await api.call('POST', '/v0/pipelines/oomloop/start')).status).toBe(202);
    const rows = Array.from({ length: 300 }, (_, i) => JSON.stringify({ id: i })).join('\n');
    const send = () =>
      void fetch(`${world.api}/v0/pipelines/oomloop/ingress/t?format=json&update_format=raw`, {
        method: 'POST',
        body: rows,
      }).catch(() => undefined);
    // Kills are counted by what the kubelet reports (each restart of the container, by pod uid), not
    // by rounds of send-then-wait: a kill can come before a look sees the one before it (a slow
    // machine's API server under a cgroup OOM), and the last one removes the pod. Every look notes
    // whether the pipeline ran again with a kill behind it and no error: the restarts were tolerated.
    const counted = new Map<string, number>();
    const kills: string[] = [];
    const looks: string[] = [];
    /** The last six looks, oldest first. */
    const remember = (line: string) => {
      looks.push(line);
      if (looks.length > 6) looks.shift();
    };
    let toleratedRestarts = 0;
    let sentAt = 0;
    /** The pod's pipeline container now: its pod's uid, restarts, last exit reason, and whether it runs. */
    const containerNow = async () => {
      const read = core.readNamespacedPod({ name: pod, namespace });
      const current = (await isGone(read)) ? undefined : await read;
      const container = current?.status?.containerStatuses?.find((c) => c.name === 'pipeline');
      return {
        uid: current?.metadata?.uid,
        restarts: container?.restartCount ?? 0,
        reason: String(container?.lastState?.terminated?.reason),
        running: Boolean(container?.state?.running),
      };
    };
    const look = async (): Promise<Json | undefined> => {
      const record = await api.get('oomloop');
      const { uid, restarts, reason, running } = await containerNow();
      if (uid) {
        for (let n = counted.get(uid) ?? 0; n < restarts; n += 1) kills.push(reason);
        counted.set(uid, Math.max(counted.get(uid) ?? 0, restarts));
      }
      remember(`${String(record['deployment_status'])} ${uid ?? 'gone'} restarts=${restarts}`);
      if (record['deployment_error'] != null) return record;
      const up = running && record['deployment_status'] === 'Running';
      if (up) toleratedRestarts = Math.max(toleratedRestarts, restarts);
      // The record can say Running a moment after a kill, before the runner saw it: a send then
      // reaches no process. Send again every 20 s while the container runs.
      if (up && Date.now() - sentAt > 20_000) {
        send();
        sentAt = Date.now();
      }
      return undefined;
    };
    await api.until('oomloop', (p) => p['deployment_status'] === 'Running', 300_000);
    const deadline = Date.now() + 480_000;
    let failed: Json | undefined;
    while (!failed) {
      const seen = `the last looks: ${looks.join('; ')}; kills seen: ${kills.join(', ') || 'none'}`;
      expect(Date.now() < deadline, `no deployment_error within 480 s; ${seen}`).toBe(true);
      failed = await look().catch((error: unknown) => void remember(`look failed: ${String(error)}`));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // The pipeline was seen running again after a kill, without an error (a look may miss the second
    // tolerated restart when the third kill follows it at once; the runner's events count all three).
    expect(toleratedRestarts, `kills seen: ${kills.join(', ')}`).toBeGreaterThanOrEqual(1);
    expect(
      kills.every((reason) => reason === 'OOMKilled'),
      `kills seen: ${kills.join(', ')}`,
    ).toBe(true);
    const error = (failed as Json)['deployment_error'] as Json;
    expect(error).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', name: pod, reason: 'OOMKilled' },
    });
    const message = String((error['details'] as Json)['message']);
    expect(message).toContain('ran out of memory');
    expect(message).toContain(`${RESTART_LIMIT + 1} restarts within 600 s, more than the ${RESTART_LIMIT} tolerated`);
    await api.until('oomloop', (p) => p['deployment_status'] === 'Stopped', 180_000);
    const events = await core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=pipeline-${id},reason=PipelinePodLost`,
    });
    const lost = events.items.map((e) => String(e.message));
    expect(lost).toHaveLength(RESTART_LIMIT + 1);
    // Each loss the runner counted was an OOM kill (not an eviction or a replaced pod).
    for (const text of lost) expect(text).toContain('OOMKilled: container pipeline ran out of memory');
  }, 900_000);
});
