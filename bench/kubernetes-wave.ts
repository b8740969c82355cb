import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { say, sleep } from './common.js';
import { NAMESPACE, STATE_DIR, type World } from './kubernetes-world.js';
import { cpuPct, mark, rssSampler } from './proc-sample.js';

// The measurement of `npm run bench:kubernetes`: N pipelines started at once, watched from three
// sides (the API's status list, the pods' Ready flips seen by a watch of our own, the runner's
// /metrics and /proc), then a steady-state window with all of them Running.

export interface StatusRecord {
  id: string;
  name: string;
  program_status: string;
  deployment_status: string;
  deployment_status_since: string;
  deployment_resources_status: string;
  deployment_resources_status_since: string;
  deployment_error?: { error_code?: string; message?: string } | null;
}

/** `svc_runner_kubernetes_requests_total` by "verb resource". */
export type Requests = Record<string, number>;

export interface WaveResult {
  n: number;
  startedAt: number;
  postsMs: number;
  /** Per pipeline id: when our poll first saw Provisioned / Running (epoch ms). */
  seenProvisioned: Map<string, number>;
  seenRunning: Map<string, number>;
  /** The final records (their *_since stamps are the runner's writes). */
  records: StatusRecord[];
  failed: StatusRecord[];
  /** Pipelines with a deployment_error at the end of the steady-state window (fatal errors after the wave). */
  failedLater: StatusRecord[];
  /** Pods whose stub process got a signal (another test cluster's agent stopping "its" processes). */
  signalled: number;
  /** Pod Ready flips: stamped by our watch, and the pod's own lastTransitionTime (1 s resolution). */
  readyWatched: Map<string, number>;
  readyCondition: Map<string, number>;
  /** When our watch saw each pipeline's pod appear (ADDED). */
  podAdded: Map<string, number>;
  /** The runner's log line "resources status Stopped → Provisioning", by pipeline id (its timestamp). */
  provisioningLogged: Map<string, number>;
  /** The runner's own "wake_to_write_ms" of each Provisioned write: its informer's event → the write. */
  runnerLatency: Map<string, number>;
  requests: { startup: Requests; wave: Requests; steady: Requests };
  waveMs: number;
  steadyMs: number;
  cpu: { wave: Record<string, number>; steady: Record<string, number> };
  runnerRss: { beforeMiB: number; wavePeakMiB: number; steadyMiB: number };
}

export async function call(method: string, url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export const list = async (api: string): Promise<StatusRecord[]> =>
  (await call('GET', `${api}/v0/pipelines?selector=status`)) as StatusRecord[];

/**
 * From the runner's /metrics: `svc_runner_kubernetes_requests_total` as "verb resource", and the
 * reconcile histogram's count and sum as "reconciles <outcome>" and "reconcile-seconds <outcome>".
 */
export async function requests(runnerUrl: string): Promise<Requests> {
  const text = await (await fetch(`${runnerUrl}/metrics`)).text();
  const out: Requests = {};
  for (const line of text.split('\n')) {
    const m = /^svc_runner_kubernetes_requests_total\{verb="([^"]*)",resource="([^"]*)"\} (\S+)$/.exec(line);
    if (m) out[`${m[1]} ${m[2]}`] = Number(m[3]);
    const r = /^svc_runner_reconcile_duration_seconds_(count|sum)\{outcome="([^"]*)"\} (\S+)$/.exec(line);
    if (r) out[`${r[1] === 'count' ? 'reconciles' : 'reconcile-seconds'} ${r[2]}`] = Number(r[3]);
    const batch = /^svc_runner_write_batch_size_(count|sum) (\S+)$/.exec(line);
    if (batch) out[`writes ${batch[1] === 'count' ? 'statements' : 'rows'}`] = Number(batch[2]);
    // prom-client resets its event-loop delay histogram at each scrape: these cover the time since the last.
    const lag = /^svc_nodejs_eventloop_lag_(p99|max)_seconds (\S+)$/.exec(line);
    if (lag) out[`lag ${lag[1]}`] = Number(lag[2]);
  }
  return out;
}

/** Pod logs in which the stub says it got a signal: someone stopped a pod process (see README). */
export function signalledStubs(stateDir: string): number {
  const pods = join(stateDir, 'node', 'pods');
  if (!existsSync(pods)) return 0;
  return readdirSync(pods).filter((d) => {
    try {
      return /pipeline-stub: SIG/.test(readFileSync(join(pods, d, 'pipeline.log'), 'utf8'));
    } catch {
      return false;
    }
  }).length;
}

/** Counters: the difference; the event-loop gauges ('lag …') already cover the window. */
export const minus = (a: Requests, b: Requests): Requests =>
  Object.fromEntries(
    Object.keys(a)
      .map((k) => [k, k.startsWith('lag ') ? (a[k] ?? 0) : (a[k] ?? 0) - (b[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );

/** Creates `names` with a one-table program and waits until the compiler-server built them all. */
export async function createAll(api: string, names: string[], program = 'CREATE TABLE t (x INT);'): Promise<void> {
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names.slice(i, i + 50).map((name) => call('POST', `${api}/v0/pipelines`, { name, program_code: program })),
    );
  }
  const mine = new Set(names);
  for (;;) {
    const records = (await list(api)).filter((r) => mine.has(r.name));
    const done = records.filter((r) => r.program_status === 'Success').length;
    const bad = records.find((r) => /Error/.test(r.program_status));
    if (bad) throw new Error(`${bad.name}: program_status ${bad.program_status}`);
    if (done === names.length) return;
    await sleep(250);
  }
}

/**
 * Stamps each pipeline pod's first Ready=True, as the runner's informer would see it. The client's
 * Watch ends after 30 s without data; it is re-opened from the last resourceVersion (no event lost).
 */
async function watchReady(
  world: World,
  stamps: Record<'watched' | 'condition' | 'added', Map<string, number>>,
): Promise<{ abort(): void }> {
  const { watched, condition, added } = stamps;
  let stopped = false;
  let current: AbortController | undefined;
  let resourceVersion: string | undefined;
  const open = async (): Promise<void> => {
    current = await new k8s.Watch(world.admin).watch(
      `/api/v1/namespaces/${NAMESPACE}/pods`,
      resourceVersion ? { resourceVersion, allowWatchBookmarks: true } : { allowWatchBookmarks: true },
      (type: string, pod: k8s.V1Pod) => {
        const now = Date.now();
        // ERROR (e.g. 410 Gone: the version is too old): start over from the current state.
        resourceVersion = type === 'ERROR' ? undefined : (pod.metadata?.resourceVersion ?? resourceVersion);
        const id = /^pipeline-(.+)-0$/.exec(pod.metadata?.name ?? '')?.[1];
        if (!id) return;
        if (!added.has(id)) added.set(id, now);
        const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
        if (!ready || watched.has(id)) return;
        watched.set(id, now);
        condition.set(id, new Date(ready.lastTransitionTime as unknown as string).getTime());
      },
      (error: unknown) => {
        if (stopped) return;
        if (error && !String(error).includes('TimeoutError')) say(`pod watch ended (${String(error)}); re-opening`);
        void open().catch((e: unknown) => say(`pod watch could not be re-opened: ${String(e)}`));
      },
    );
  };
  await open();
  return {
    abort() {
      stopped = true;
      current?.abort();
    },
  };
}

type Seen = Record<'seenProvisioned' | 'seenRunning' | 'readyWatched', Map<string, number>>;

/** Polls the status list until every pipeline is Running or failed (or time-out / interruption). */
async function untilAllRunning(
  api: string,
  n: number,
  startedAt: number,
  opts: { pollMs: number; timeoutS: number; signal: AbortSignal },
  seen: Seen,
): Promise<{ records: StatusRecord[]; failed: StatusRecord[] }> {
  const { seenProvisioned, seenRunning, readyWatched } = seen;
  let lastSay = Date.now();
  for (;;) {
    const records = await list(api);
    const now = Date.now();
    for (const r of records) {
      if (r.deployment_resources_status === 'Provisioned' && !seenProvisioned.has(r.id)) seenProvisioned.set(r.id, now);
      if (r.deployment_status === 'Running' && !seenRunning.has(r.id)) seenRunning.set(r.id, now);
    }
    const failed = records.filter((r) => r.deployment_error);
    if (seenRunning.size + failed.length >= n) return { records, failed };
    if (opts.signal.aborted) throw new Error('interrupted');
    if (now - startedAt > opts.timeoutS * 1000) {
      say(`gave up after ${opts.timeoutS} s`);
      return { records, failed };
    }
    if (now - lastSay > 10_000) {
      lastSay = now;
      say(
        `${((now - startedAt) / 1000).toFixed(0)} s: ${readyWatched.size} pods Ready, ${seenProvisioned.size} ` +
          `Provisioned, ${seenRunning.size} Running, ${failed.length} failed`,
      );
    }
    await sleep(opts.pollMs);
  }
}

export async function wave(
  world: World,
  names: string[],
  opts: { pollMs: number; timeoutS: number; settleS: number; windowS: number; signal: AbortSignal },
): Promise<WaveResult> {
  const { api, runnerUrl } = world;
  const pids = { runner: world.runner.child.pid ?? -1, ...world.daemons };
  const readyWatched = new Map<string, number>();
  const readyCondition = new Map<string, number>();
  const podAdded = new Map<string, number>();
  const watch = await watchReady(world, { watched: readyWatched, condition: readyCondition, added: podAdded });
  const seenProvisioned = new Map<string, number>();
  const seenRunning = new Map<string, number>();
  const rss = rssSampler(pids.runner);
  const beforeMiB = rss.stop().lastMiB;
  const startup = await requests(runnerUrl);
  const waveRss = rssSampler(pids.runner);
  const cpu0 = mark(pids);
  const startedAt = Date.now();
  await Promise.all(names.map((name) => call('POST', `${api}/v0/pipelines/${name}/start?initial=running`)));
  const postsMs = Date.now() - startedAt;
  say(`${names.length} POST /start answered in ${postsMs} ms`);

  const { records, failed } = await untilAllRunning(api, names.length, startedAt, opts, {
    seenProvisioned,
    seenRunning,
    readyWatched,
  });
  const cpu1 = mark(pids);
  const waveMs = Date.now() - startedAt;
  const afterWave = await requests(runnerUrl);
  const wavePeakMiB = waveRss.stop().peakMiB;
  say(
    `wave over after ${(waveMs / 1000).toFixed(1)} s; settling ${opts.settleS} s, then ${opts.windowS} s of steady state`,
  );

  await sleep(opts.settleS * 1000);
  const steadyFrom = await requests(runnerUrl);
  const cpu2 = mark(pids);
  await sleep(opts.windowS * 1000);
  const cpu3 = mark(pids);
  const steadyTo = await requests(runnerUrl);
  const steadyMiB = rssSampler(pids.runner).stop().lastMiB;
  const failedLater = (await list(api)).filter((r) => r.deployment_error && !failed.some((f) => f.id === r.id));
  const signalled = signalledStubs(STATE_DIR);
  watch.abort();
  const provisioningLogged = new Map<string, number>();
  const runnerLatency = new Map<string, number>();
  for (const l of world.runner.lines) {
    const text = String((l['fields'] as { message?: unknown } | undefined)?.message ?? '');
    if (text.startsWith('resources status Stopped → Provisioning'))
      provisioningLogged.set(String(l['pipeline-id']), Date.parse(String(l['timestamp'])));
    const wakeToWrite = (l['fields'] as { wake_to_write_ms?: unknown } | undefined)?.wake_to_write_ms;
    if (text.startsWith('resources status Provisioning → Provisioned') && typeof wakeToWrite === 'number')
      runnerLatency.set(String(l['pipeline-id']), wakeToWrite);
  }
  return {
    podAdded,
    provisioningLogged,
    runnerLatency,
    n: names.length,
    startedAt,
    postsMs,
    seenProvisioned,
    seenRunning,
    records,
    failed,
    failedLater,
    signalled,
    readyWatched,
    readyCondition,
    requests: { startup, wave: minus(afterWave, startup), steady: minus(steadyTo, steadyFrom) },
    waveMs,
    steadyMs: cpu3.at - cpu2.at,
    cpu: { wave: cpuPct(cpu0, cpu1), steady: cpuPct(cpu2, cpu3) },
    runnerRss: { beforeMiB, wavePeakMiB, steadyMiB },
  };
}
