import { call, list, type StatusRecord, waitAll } from './api-client.js';
import { cpuSeconds, killLeftovers, pidsWith, statusMiB } from './proc-sample.js';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { message, type SvcProcess } from '../test/support/svc-process.js';
import {
  benchFlags,
  type Cleanup,
  integerFlag,
  machineTable,
  runBench,
  writeResult,
  type Manager,
  say,
  sleep,
  startManager,
  uptime,
  waitForQuiet,
} from './common.js';
import { machineFacts, type MachineFacts } from './report.js';

// `npm run bench:runner -- [--record] [--pipelines 10] [--running 50] [--window 30]`
// The runner of issue 4 through the real API of a real `svc manager` process (dist/cli.js, PGlite):
// 1. start latency: POST /start → deployment_status Running as a client polling every 10 ms sees it;
// 2. the runner's own share, from the manager's JSON log lines;
// 3. steady-state CPU of the manager (and of the pipeline processes) with --running pipelines Running.
// See bench/README.md.

const USAGE = `usage: npm run bench:runner -- [options]   (run "npm run build" first)
  --pipelines N     pipelines started one at a time for the latency figures (default 10)
  --running M       pipelines Running during the CPU window (default 50; the issue's figure is 100)
  --batch N         pipelines started concurrently while filling up to --running (default 5)
  --window S        seconds of CPU sampling (default 30)
  --record          also write bench/results/<date>-runner.md (waits up to --max-wait s for load < 1.5)
  --max-wait S      seconds to wait for the 1-minute load to drop below 1.5 before recording (default 300)`;

const values = benchFlags(USAGE, {
  pipelines: { type: 'string', default: '10' },
  running: { type: 'string', default: '50' },
  batch: { type: 'string', default: '5' },
  window: { type: 'string', default: '30' },
  record: { type: 'boolean', default: false },
  'max-wait': { type: 'string', default: '300' },
});

const PIPELINES = integerFlag('pipelines', values.pipelines, 2, 1000);
const RUNNING = integerFlag('running', values.running, 0, 1000);
const BATCH = integerFlag('batch', values.batch, 1, 1000);
const WINDOW_S = integerFlag('window', values.window, 1, 3600);
const MAX_WAIT_S = integerFlag('max-wait', values['max-wait'], 0, 3600);

const PROGRAM = 'CREATE TABLE t (x INT);\n';
const POLL_MS = 10;
const TIMEOUT_MS = 120_000;
const MAX_LOAD = 1.5;
const GOAL_START_MS = 1_000;
const GOAL_SHARE_MS = 20;
const GOAL_CPU_PCT = 5;

const pad = (n: number, width = 3): string => String(n).padStart(width, '0');

/** Milliseconds from sending POST /start until GET ?selector=status (every 10 ms) says Running. */
async function startUntilRunning(url: string, name: string): Promise<{ ms: number; record: StatusRecord }> {
  const started = performance.now();
  await call('POST', `${url}/v0/pipelines/${name}/start`);
  for (;;) {
    const r = (await call('GET', `${url}/v0/pipelines/${name}?selector=status`)) as StatusRecord;
    if (r.deployment_status === 'Running') return { ms: performance.now() - started, record: r };
    if (r.deployment_error) throw new Error(`${name} failed to start: ${JSON.stringify(r.deployment_error)}`);
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`${name} still ${r.deployment_status}`);
    await sleep(POLL_MS);
  }
}

interface Share {
  /** API "pipeline start requested" → runner "Stopped → Provisioning". */
  toProvisioningMs: number;
  /** Pipeline "pipeline initialization complete" (its own timestamp) → the record's deployment_runtime_status_since (Running written). */
  readyToRecordMs: number;
  /** Runner "Stopped → Provisioning" → pipeline "initialization complete": process start and engine load. */
  processMs: number;
}

const at = (l: Record<string, unknown> | undefined): number => Date.parse(String(l?.['timestamp']));

/** The runner's share for one pipeline, from the manager's log lines (one clock: same machine). */
async function share(svc: SvcProcess, name: string, running: StatusRecord): Promise<Share> {
  const mine = (pred: (l: Record<string, unknown>) => boolean) => (l: Record<string, unknown>) =>
    l['pipeline-name'] === name && pred(l);
  const relayed = (l: Record<string, unknown>): string | undefined => {
    const line = (l['fields'] as { line?: unknown } | undefined)?.line;
    return typeof line === 'string' && line.includes('pipeline initialization complete') ? line : undefined;
  };
  // The runner relays the pipeline's log by tailing its file: the line may come after Running.
  const ready =
    relayed(
      await svc.waitForLine(
        mine((l) => relayed(l) !== undefined),
        5_000,
      ),
    ) ?? '{}';
  const requested = svc.lines.find(mine((l) => message(l) === 'pipeline start requested'));
  const provisioning = svc.lines.find(mine((l) => message(l).startsWith('resources status Stopped → Provisioning')));
  const readyAt = at(JSON.parse(ready) as Record<string, unknown>);
  return {
    toProvisioningMs: at(provisioning) - at(requested),
    readyToRecordMs: Date.parse(String(running.deployment_runtime_status_since)) - readyAt,
    processMs: readyAt - at(provisioning),
  };
}

interface Cpu {
  running: number;
  pipelinePids: number;
  windowS: number;
  managerPct: number;
  pipelinesPct: number;
  managerRssMiB: number;
  pipelineRssMiB: number;
  fillMs: number;
}

async function sampleCpu(m: Manager, dataDir: string, running: number, fillMs: number): Promise<Cpu> {
  const pids = pidsWith(join(dataDir, 'pipelines'));
  const m0 = cpuSeconds(m.pid);
  const p0 = new Map(pids.map((p) => [p, cpuSeconds(p)]));
  const t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const m1 = cpuSeconds(m.pid);
  const seconds = (performance.now() - t0) / 1000;
  let pipelineSeconds = 0;
  // A process gone meanwhile reads NaN and counts nothing.
  for (const [pid, before] of p0) pipelineSeconds += cpuSeconds(pid) - before || 0;
  const pct = (cpu: number) => (cpu / seconds) * 100;
  return {
    running,
    pipelinePids: pids.length,
    windowS: seconds,
    managerPct: pct(m1 - m0),
    pipelinesPct: pct(pipelineSeconds),
    managerRssMiB: statusMiB(m.pid, 'VmRSS'),
    pipelineRssMiB: pids.reduce((sum, p) => sum + (statusMiB(p, 'VmRSS') || 0), 0),
    fillMs,
  };
}

interface Result {
  latencies: number[];
  shares: Share[];
  templateCreated: boolean;
  cpu?: Cpu;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const p90 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.9) - 1] ?? NaN;

async function stopAll(m: Manager, names: string[]): Promise<void> {
  const active = (await list(m.url)).filter((r) => names.includes(r.name) && r.deployment_status !== 'Stopped');
  for (let i = 0; i < active.length; i += 20) {
    await Promise.all(
      active.slice(i, i + 20).map((r) => call('POST', `${m.url}/v0/pipelines/${r.name}/stop?force=true`)),
    );
  }
  await waitAll(m.url, names, (r) => r.deployment_status === 'Stopped', 'Stopped');
}

async function measure(dataDir: string, cleanups: Cleanup[]): Promise<Result> {
  const m = await startManager(dataDir);
  const names = Array.from({ length: Math.max(PIPELINES, RUNNING) }, (_, i) => `run-${pad(i)}`);
  cleanups.push(async () => {
    if (m.svc.child.exitCode === null) {
      await stopAll(m, names).catch((error: unknown) => say(`stopping pipelines failed: ${String(error)}`));
      m.svc.child.kill('SIGTERM');
      const code = await m.svc.exited;
      if (code !== 0) say(`svc manager exited ${code}: ${m.svc.stderr.join('').slice(-2000)}`);
    }
  });
  say(`svc manager pid ${m.pid} at ${m.url}; data dir ${dataDir}`);
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(
      names
        .slice(i, i + 50)
        .map((name) => call('PUT', `${m.url}/v0/pipelines/${name}`, { name, program_code: PROGRAM })),
    );
  await waitAll(m.url, names, (r) => r.program_status === 'Success', 'compiled');
  say(`${names.length} pipelines compiled`);

  const latencies: number[] = [];
  const shares: Share[] = [];
  for (const name of names.slice(0, PIPELINES)) {
    const { ms, record } = await startUntilRunning(m.url, name);
    latencies.push(ms);
    shares.push(await share(m.svc, name, record));
    const s = shares.at(-1);
    say(
      `${name}: ${latencies.at(-1)?.toFixed(0)} ms (start → Provisioning ${s?.toProvisioningMs.toFixed(1)} ms, ` +
        `ready → Running written ${s?.readyToRecordMs.toFixed(1)} ms)`,
    );
  }
  const cache = join(dataDir, 'cache');
  const templateCreated = existsSync(cache) && readdirSync(cache).some((f) => /^engine-.*\.tar$/.test(f));

  let cpu: Cpu | undefined;
  if (RUNNING > 0) {
    const fillStarted = performance.now();
    const rest = names.slice(PIPELINES, RUNNING);
    for (let i = 0; i < rest.length; i += BATCH) {
      const batch = rest.slice(i, i + BATCH);
      await Promise.all(batch.map((name) => call('POST', `${m.url}/v0/pipelines/${name}/start`)));
      await waitAll(m.url, batch, (r) => r.deployment_status === 'Running', 'Running');
      say(`${Math.min(PIPELINES + i + BATCH, RUNNING)} pipelines Running`);
    }
    const fillMs = performance.now() - fillStarted;
    const running = names.slice(0, Math.max(RUNNING, PIPELINES));
    await waitAll(m.url, running, (r) => r.deployment_status === 'Running', 'Running');
    await sleep(2_000); // let the last starts' work settle before the window
    say(`sampling CPU for ${WINDOW_S} s with ${running.length} pipelines Running`);
    cpu = await sampleCpu(m, dataDir, running.length, fillMs);
    say(`manager ${cpu.managerPct.toFixed(2)} % of one core; pipelines together ${cpu.pipelinesPct.toFixed(1)} %`);
  }
  await cleanups.pop()?.();
  return { latencies, shares, templateCreated, cpu };
}

const f0 = (n: number): string => n.toFixed(0);
const f1 = (n: number): string => n.toFixed(1);
const yes = (ok: boolean): string => (ok ? 'yes' : 'no');

function table(r: Result): string {
  const [first, ...rest] = r.latencies;
  const [firstShare, ...restShares] = r.shares;
  const row = (what: string, xs: number[], firstX: number | undefined, goal: number, fmt = f0): string =>
    `| ${what} | ${firstX === undefined ? '' : fmt(firstX)} | ${fmt(Math.min(...xs))} | ${fmt(median(xs))} | ` +
    `${fmt(p90(xs))} | ${fmt(Math.max(...xs))} | < ${goal} | ${yes(median(xs) < goal)} |`;
  const rows = [
    `| Measurement (${rest.length} starts after the first) | first | min | median | p90 | max | goal | met (median) |`,
    '|---|--:|--:|--:|--:|--:|--:|:-:|',
    row('POST /start → `deployment_status: Running` (client poll 10 ms), ms', rest, first, GOAL_START_MS),
    row(
      '… API "pipeline start requested" → runner "Stopped → Provisioning", ms',
      restShares.map((s) => s.toProvisioningMs),
      firstShare?.toProvisioningMs,
      GOAL_SHARE_MS,
      f1,
    ),
    row(
      '… pipeline "initialization complete" → record\'s `deployment_runtime_status_since` (Running written), ms',
      restShares.map((s) => s.readyToRecordMs),
      firstShare?.readyToRecordMs,
      GOAL_SHARE_MS,
      f1,
    ),
    `| … "Stopped → Provisioning" → "initialization complete" (process start, engine load; not the runner's), ms | ` +
      `${f0(firstShare?.processMs ?? NaN)} | ${f0(Math.min(...restShares.map((s) => s.processMs)))} | ` +
      `${f0(median(restShares.map((s) => s.processMs)))} | ${f0(p90(restShares.map((s) => s.processMs)))} | ` +
      `${f0(Math.max(...restShares.map((s) => s.processMs)))} | | |`,
  ];
  const c = r.cpu;
  if (c) {
    rows.push(
      '',
      '| Steady state | value | goal | met |',
      '|---|--:|--:|:-:|',
      `| pipelines Running (pipeline processes found under the data dir) | ${c.running} (${c.pipelinePids}) | | |`,
      `| manager CPU over ${f1(c.windowS)} s, % of one core | ${c.managerPct.toFixed(2)} | < ${GOAL_CPU_PCT} | ${yes(c.managerPct < GOAL_CPU_PCT)} |`,
      `| all pipeline processes together, % of one core | ${f1(c.pipelinesPct)} | | |`,
      `| … per pipeline process, % of one core | ${(c.pipelinesPct / Math.max(1, c.pipelinePids)).toFixed(2)} | | |`,
      `| manager RSS, MiB | ${f0(c.managerRssMiB)} | | |`,
      `| pipeline processes RSS, summed, MiB (per process) | ${f0(c.pipelineRssMiB)} (${f0(c.pipelineRssMiB / Math.max(1, c.pipelinePids))}) | | |`,
      `| time to start the remaining ${c.running - r.latencies.length} in batches of ${BATCH}, s | ${f1(c.fillMs / 1000)} | | |`,
    );
  }
  return rows.join('\n');
}

function render(command: string, facts: MachineFacts, r: Result, uptimeAfter: string, leftovers: number): string {
  return `# Runner benchmark, ${facts.date.slice(0, 10)}

\`${command}\`: a real \`svc manager\` process (\`node dist/cli.js manager --port 0 --data-dir <tmp>\`, embedded
PGlite, runner with the local backend inside), driven over loopback through \`/v0\`. ${Math.max(PIPELINES, RUNNING)}
pipelines with the program \`${PROGRAM.trim()}\` are created and compiled; then ${PIPELINES} are started one at a
time, each timed from POST \`/start\` until \`GET …?selector=status\` (polled every ${POLL_MS} ms) says
\`deployment_status: Running\`. Pipelines already started stay Running, so start *i* runs beside *i − 1* others.
The first start is reported apart: it creates the engine template \`<data-dir>/cache/engine-*.tar\`
(${r.templateCreated ? 'found after the run' : '**not found** after the run'}). The breakdown rows come from the
manager's JSON log lines (SVC_LOG_JSON=1): the API's and the runner's own timestamps, and the pipeline's timestamp
inside the line the runner relays (\`fields.line\`); one machine, one clock.
${
  r.cpu
    ? `Then the rest are started (batches of ${BATCH}) until ${r.cpu.running} are Running, and after 2 s the manager's
\`/proc/<pid>/stat\` utime+stime is sampled over ${WINDOW_S} s, as are those of every process whose command line
mentions \`<data-dir>/pipelines\`.`
    : ''
}

## Results

${table(r)}

${machineTable(facts, uptimeAfter, {
  postgres: undefined,
  'uptime before': undefined,
  [`uptime before (waited for 1-minute load < ${MAX_LOAD}, up to ${MAX_WAIT_S} s)`]: facts.uptime,
  'pipeline processes left after cleanup': String(leftovers),
})}`;
}

const command = `npm run bench:runner -- ${process.argv.slice(2).join(' ')}`.trim();
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-runner-'));
await runBench(async (cleanups) => {
  // Runs last: whatever survived, it goes, and so does the data dir.
  cleanups.push(async () => {
    killLeftovers(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });
  if (values.record) await waitForQuiet(MAX_LOAD, MAX_WAIT_S);
  say(`node ${process.version}; ${uptime()}`);
  const facts = machineFacts('not used');
  const result = await measure(dataDir, cleanups);
  const uptimeAfter = uptime();
  const leftovers = killLeftovers(dataDir);
  process.stdout.write(`\n${table(result)}\n`);
  if (leftovers > 0) throw new Error(`${leftovers} pipeline processes survived stop and manager exit`);
  if (values.record) {
    say(`recorded ${writeResult('runner', facts.date, render(command, facts, result, uptimeAfter, leftovers))}`);
  }
  return true;
});
