import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchFlags, integerFlag, machineTable, runBench, say, uptime, waitForQuiet, writeResult } from './common.js';
import { NAMESPACE, POD_SUBNET, STATE_DIR, STUB_IMAGE, startWorld } from './kubernetes-world.js';
import { createAll, type Requests, wave, type WaveResult } from './kubernetes-wave.js';
import { machineFacts, type MachineFacts } from './report.js';

// `npm run bench:kubernetes -- [--pipelines 200] [--record]`: issue 6's Performance section. On the
// test cluster (its own state dir and pod subnet), N pipelines started at once through the HTTP API
// of `svc api-server`, run by `svc runner --backend kubernetes` (its own process, the chart's RBAC):
// time until all are Provisioned and Running, the runner's CPU and memory, its API-server requests
// during the wave and in the steady state, and its latency from pod Ready to the record written.
// Pods run a stand-in for the pipeline process (bench/pipeline-stub.mjs). See bench/README.md.

const USAGE = `usage: npm run bench:kubernetes -- [options]   (run "npm run build" first)
  --pipelines N   pipelines started at once (default 200)
  --window S      seconds of steady state measured after all are Running (default 30)
  --settle S      seconds waited between the wave and the steady-state window (default 5)
  --poll MS       period of the client's status list poll (default 500)
  --timeout S     give up on the wave after S seconds (default 900)
  --record        also write bench/results/<date>-kubernetes.md (waits up to --max-wait s for load < 2)
  --max-wait S    seconds to wait for the 1-minute load to drop below 2 before recording (default 300)
  --cpu-prof      run the runner under node --cpu-prof (profile in bench/profiles/; not with --record)`;

const values = benchFlags(USAGE, {
  pipelines: { type: 'string', default: '200' },
  window: { type: 'string', default: '30' },
  settle: { type: 'string', default: '5' },
  poll: { type: 'string', default: '500' },
  timeout: { type: 'string', default: '900' },
  record: { type: 'boolean', default: false },
  'max-wait': { type: 'string', default: '300' },
  'cpu-prof': { type: 'boolean', default: false },
});
const PROFILE_DIR = new URL('./profiles/', import.meta.url).pathname;
const N = integerFlag('pipelines', values.pipelines, 1, 2000);
const WINDOW_S = integerFlag('window', values.window, 1, 3600);
const SETTLE_S = integerFlag('settle', values.settle, 0, 600);
const POLL_MS = integerFlag('poll', values.poll, 10, 10_000);
const TIMEOUT_S = integerFlag('timeout', values.timeout, 10, 7200);
const MAX_WAIT_S = integerFlag('max-wait', values['max-wait'], 0, 3600);
const MAX_LOAD = 2;
const GOAL_P99_MS = 100;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN);
};
const f0 = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const s1 = (ms: number): string => f1(ms / 1000);

function stats(label: string, xs: number[], fmt = f0): string {
  return `| ${label} | ${xs.length} | ${fmt(Math.min(...xs))} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 90))} | ${fmt(pct(xs, 99))} | ${fmt(Math.max(...xs))} |`;
}

const ms = (seconds: number | undefined): string => (seconds === undefined ? 'n/a' : f1(seconds * 1000));

/** The /metrics figures that are API-server requests (not the reconcile counters or the event-loop gauges). */
const isApiRequest = (key: string): boolean =>
  !key.startsWith('reconcile') && !key.startsWith('lag ') && !key.startsWith('writes ');

function requestRows(r: Requests, seconds: number): string[] {
  const keys = Object.keys(r).filter(isApiRequest).sort();
  if (keys.length === 0) return ['| (none) | 0 | 0 |'];
  const total = keys.reduce((s, k) => s + (r[k] ?? 0), 0);
  return [
    ...keys.map((k) => `| ${k} | ${r[k]} | ${((r[k] ?? 0) / seconds).toFixed(2)} |`),
    `| **all** | ${total} | ${(total / seconds).toFixed(2)} |`,
  ];
}

const verbCalls = (r: Requests, verb: string): number =>
  Object.entries(r)
    .filter(([k]) => k.startsWith(`${verb} `))
    .reduce((s, [, v]) => s + v, 0);

function tables(w: WaveResult): string {
  const byId = new Map(w.records.map((r) => [r.id, r]));
  const since = (id: string, key: 'deployment_resources_status_since' | 'deployment_status_since') =>
    Date.parse(byId.get(id)?.[key] ?? '');
  const provisioned = w.records.filter((r) => r.deployment_resources_status === 'Provisioned');
  const running = w.records.filter((r) => r.deployment_status === 'Running');
  const provWritten = provisioned.map((r) => since(r.id, 'deployment_resources_status_since') - w.startedAt);
  const runWritten = running.map((r) => since(r.id, 'deployment_status_since') - w.startedAt);
  const latency = [...w.readyWatched]
    .filter(([id]) => byId.get(id)?.deployment_resources_status === 'Provisioned')
    .map(([id, at]) => since(id, 'deployment_resources_status_since') - at);
  const coarse = [...w.readyCondition]
    .filter(([id]) => byId.get(id)?.deployment_resources_status === 'Provisioned')
    .map(([id, at]) => since(id, 'deployment_resources_status_since') - at);
  const after = (from: Map<string, number>, to: Map<string, number>) =>
    [...to].filter(([id]) => from.has(id)).map(([id, at]) => at - (from.get(id) ?? NaN));
  const posted = new Map(w.records.map((r) => [r.id, w.startedAt]));
  const waveS = w.waveMs / 1000;
  const steadyS = w.steadyMs / 1000;
  const cpuRow = (name: string) => `| ${name} | ${f1(w.cpu.wave[name] ?? NaN)} | ${f1(w.cpu.steady[name] ?? NaN)} |`;
  const steadyLists = verbCalls(w.requests.steady, 'list');
  const steadyWatches = verbCalls(w.requests.steady, 'watch');
  const p99 = pct(latency, 99);
  const reconciles = (r: Requests, seconds: number): string => {
    const outcomes = Object.keys(r).filter((k) => k.startsWith('reconciles '));
    const count = outcomes.reduce((sum, k) => sum + (r[k] ?? 0), 0);
    const secs = outcomes.reduce((sum, k) => sum + (r[k.replace('reconciles', 'reconcile-seconds')] ?? 0), 0);
    const parts = outcomes.map((k) => `${k.slice('reconciles '.length)} ${r[k]}`).join(', ');
    return `${count} (${(count / seconds).toFixed(1)}/s; ${parts}), mean ${f1((secs / Math.max(1, count)) * 1000)} ms`;
  };
  return [
    `### The wave: ${w.n} pipelines started at once`,
    '',
    '| Measurement | value |',
    '|---|--:|',
    `| pipelines started / Provisioned / Running / with deployment_error | ${w.n} / ${provisioned.length} / ${running.length} / ${w.failed.length} |`,
    `| … of them failed after the wave, by the end of the steady-state window | ${w.failedLater.length} |`,
    `| pods whose stub process got a signal (not from this bench: another cluster's node agent) | ${w.signalled} |`,
    `| all ${w.n} POST /start answered, s | ${s1(w.postsMs)} |`,
    `| first POST → last Provisioned written (max \`deployment_resources_status_since\`), s | ${s1(Math.max(...provWritten))} |`,
    `| first POST → last Running written (max \`deployment_status_since\`), s | ${s1(Math.max(...runWritten))} |`,
    `| first POST → all Running seen by the client's poll (${POLL_MS} ms), s | ${f1(waveS)} |`,
    '',
    '| Per pipeline, ms | n | min | p50 | p90 | p99 | max |',
    '|---|--:|--:|--:|--:|--:|--:|',
    stats('first POST → its Provisioned written', provWritten),
    stats('first POST → its Running written', runWritten),
    stats('… first POST → runner logs "Stopped → Provisioning"', after(posted, w.provisioningLogged)),
    stats(
      '… "Stopped → Provisioning" logged → pod seen by our watch (StatefulSet, PVC, pod)',
      after(w.provisioningLogged, w.podAdded),
    ),
    stats(
      '… pod seen → pod Ready seen (node agent: process start, readiness probe)',
      after(w.podAdded, w.readyWatched),
    ),
    stats(`**pod Ready (our watch) → Provisioned written** (goal p99 < ${GOAL_P99_MS})`, latency, f1),
    stats("pod Ready condition's lastTransitionTime (1 s resolution) → Provisioned written", coarse),
    stats('… the runner alone: its informer event (wake-up) → Provisioned written', [...w.runnerLatency.values()], f1),
    '',
    `Goal p99 < ${GOAL_P99_MS} ms from pod Ready to the record written: **${p99 < GOAL_P99_MS ? 'met' : 'not met'}** (${f1(p99)} ms).`,
    '',
    '### CPU (% of one core) and memory',
    '',
    `| process | during the wave (${f1(waveS)} s) | steady state (${f1(steadyS)} s) |`,
    '|---|--:|--:|',
    ...Object.keys(w.cpu.wave).map(cpuRow),
    '',
    `Runner reconciles (\`svc_runner_reconcile_duration_seconds\` count and sum): during the wave ` +
      `${reconciles(w.requests.wave, waveS)}; in the steady state ${reconciles(w.requests.steady, steadyS)}.`,
    '',
    `Runner writes during the wave (\`svc_runner_write_batch_size\`): ${w.requests.wave['writes rows'] ?? 0} ` +
      `rows in ${w.requests.wave['writes statements'] ?? 0} statements (writes that wait while 8 statements are in flight go together).`,
    '',
    `Runner event-loop delay (\`svc_nodejs_eventloop_lag_{p99,max}_seconds\`): during the wave p99 ` +
      `${ms(w.requests.wave['lag p99'])} ms, max ${ms(w.requests.wave['lag max'])} ms; in the steady state p99 ` +
      `${ms(w.requests.steady['lag p99'])} ms, max ${ms(w.requests.steady['lag max'])} ms.`,
    '',
    `Runner RSS: ${f0(w.runnerRss.beforeMiB)} MiB before the wave, peak ${f0(w.runnerRss.wavePeakMiB)} MiB during it ` +
      `(sampled every 0.5 s), ${f0(w.runnerRss.steadyMiB)} MiB after the steady-state window.`,
    '',
    "### Requests to the API server (`svc_runner_kubernetes_requests_total` on the runner's /metrics)",
    '',
    `| before the wave (runner start-up) | count |`,
    '|---|--:|',
    ...Object.entries(w.requests.startup)
      .filter(([k]) => isApiRequest(k))
      .map(([k, v]) => `| ${k} | ${v} |`),
    '',
    `| during the wave (${f1(waveS)} s) | count | per s |`,
    '|---|--:|--:|',
    ...requestRows(w.requests.wave, waveS),
    '',
    `| steady state (${f1(steadyS)} s, ${running.length} Running) | count | per s |`,
    '|---|--:|--:|',
    ...requestRows(w.requests.steady, steadyS),
    '',
    `Goal no list calls in steady state: **${steadyLists === 0 ? 'met' : 'not met'}** (${steadyLists} list calls; ` +
      `${steadyWatches} watch requests, i.e. watches re-opened from their resourceVersion without a list).`,
  ].join('\n');
}

/** Per pipeline, the epoch-ms stamps the tables summarise: for a look at single outliers afterwards. */
function rawStamps(w: WaveResult): object[] {
  return w.records.map((r) => ({
    id: r.id,
    name: r.name,
    podAdded: w.podAdded.get(r.id),
    readyWatched: w.readyWatched.get(r.id),
    provisionedWritten: Date.parse(r.deployment_resources_status_since),
    runningWritten: Date.parse(r.deployment_status_since),
    wakeToWriteMs: w.runnerLatency.get(r.id),
  }));
}

function render(command: string, facts: MachineFacts, postgres: string, w: WaveResult, after: string): string {
  const [pg, source] = postgres.split('; source ');
  return `# Kubernetes runner benchmark, ${facts.date.slice(0, 10)}

\`${command}\` (after \`npm run build\`): the test cluster (test/cluster: etcd, kube-apiserver and
kube-controller-manager 1.34.4, the TypeScript node agent; state dir \`${STATE_DIR}\`, pods on
\`${POD_SUBNET}.x.y\`), namespace \`${NAMESPACE}\` with the default pipeline template, and \`svc api-server\`,
\`svc compiler-server\` and \`svc runner --backend kubernetes --pipeline-address pod-ip\` as separate processes on
a throw-away PostgreSQL. The runner authenticates as a ServiceAccount bound to the Helm chart's runner Role.
${w.n} pipelines (program \`CREATE TABLE t (x INT);\`) are created and compiled, then all started at once
(\`POST /v0/pipelines/{name}/start?initial=running\`, concurrently).

**The pods do not run \`svc pipeline\`**: image \`${STUB_IMAGE}\` is \`bench/pipeline-stub.mjs\`, a stand-in that
answers \`GET /status\` with a Running ExtendedRuntimeStatus (a real pipeline process is ~250 MiB; 200 of them
do not fit this machine). The figures measure the runner and the control plane, not pipeline start-up.

Times are epoch milliseconds on one machine (one clock): the bench's own pod watch stamps each pod's first
Ready=True as it receives the event (the runner's informer receives the same event); the record's
\`deployment_resources_status_since\` is the runner's write of Provisioned. Provisioned = pod Ready and PVC Bound.

## Results

${tables(w)}

${machineTable(facts, after, {
  postgres: pg,
  'source (dist/, chart Role)': source,
  'uptime before': undefined,
  [`uptime before (waited for 1-minute load < ${MAX_LOAD}, up to ${MAX_WAIT_S} s)`]: facts.uptime,
})}`;
}

/** The source the run used: dist/ and the chart come from the working tree, which others may be editing. */
function gitState(): string {
  const git = (args: string[]): string => execFileSync('git', args, { encoding: 'utf8' });
  // Porcelain lines are "XY path"; X may be a space, so the output is not trimmed before slicing.
  const dirty = git(['status', '--porcelain', '--', 'src', 'charts', 'templates', 'test/cluster'])
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3));
  return `${git(['rev-parse', '--short', 'HEAD']).trim()}${dirty.length ? ` + uncommitted ${dirty.join(', ')}` : ''}`;
}

// Ctrl-C or SIGTERM ends the wave at its next poll, so the cleanups (cluster, database) still run.
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping after the current step, then cleaning up`);
    interrupted.abort();
  });
}

const command = `npm run bench:kubernetes -- ${process.argv.slice(2).join(' ')}`.trim();
await runBench(async (cleanups) => {
  if (values.record && values['cpu-prof']) throw new Error('--cpu-prof slows the runner: do not --record with it');
  if (values.record) await waitForQuiet(MAX_LOAD, MAX_WAIT_S);
  say(`node ${process.version}; ${uptime()}`);
  const facts = machineFacts('see below');
  const source = gitState();
  const logDir = mkdtempSync(join(tmpdir(), 'svc-bench-kubernetes-logs-'));
  const world = await startWorld(cleanups, logDir, MAX_WAIT_S, values['cpu-prof'] ? PROFILE_DIR : undefined);
  say(`runner pid ${world.runner.child.pid}, metrics at ${world.runnerUrl}; api ${world.api}`);
  const names = Array.from({ length: N }, (_, i) => `k8s-${String(i).padStart(4, '0')}`);
  const t = Date.now();
  await createAll(world.api, names);
  say(`${N} pipelines created and compiled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const w = await wave(world, names, {
    pollMs: POLL_MS,
    timeoutS: TIMEOUT_S,
    settleS: SETTLE_S,
    windowS: WINDOW_S,
    signal: interrupted.signal,
  });
  const after = uptime();
  writeFileSync(join(logDir, 'wave.json'), JSON.stringify(rawStamps(w)));
  process.stdout.write(`\n${tables(w)}\n`);
  if (values.record) {
    say(
      `recorded ${writeResult('kubernetes', facts.date, render(command, facts, `${world.postgres}; source ${source}`, w, after))}`,
    );
  }
  for (const f of w.failed.slice(0, 5)) say(`${f.name}: ${JSON.stringify(f.deployment_error)}`);
  say(`cluster and runner logs, and each pipeline's stamps (wave.json), are kept in ${logDir}`);
  if (values['cpu-prof']) {
    const since = (at: number) => ((at - world.runnerStartedAt) / 1000).toFixed(0);
    say(
      `runner profile (written when it stops) in ${PROFILE_DIR}: the wave is ` +
        `npx tsx bench/profile-summary.ts <file> --window ${since(w.startedAt)}:${since(w.startedAt + w.waveMs)}`,
    );
  }
  for (const f of w.failedLater.slice(0, 5)) say(`${f.name} (after the wave): ${JSON.stringify(f.deployment_error)}`);
  return w.failed.length === 0 && w.failedLater.length === 0 && w.seenRunning.size === N;
});
