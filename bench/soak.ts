import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, list, waitAll } from './api-client.js';
import {
  benchFlags,
  integerFlag,
  machineTable,
  runBench,
  say,
  sleep,
  startManager,
  uptime,
  writeResult,
} from './common.js';
import { cpuSeconds, killLeftovers, pidsWith, statusMiB } from './proc-sample.js';
import { LOG_ROTATE_BYTES } from '../src/runner/backends/local/backend.js';
import { machineFacts } from './report.js';
import { type Feeder, feedPipelines } from './soak-ingress.js';

// The embedded default left running (issue 13): `svc manager` on PGlite with pipelines that take a
// checkpoint every few seconds. Every minute: the manager's CPU and RSS, the data dir's size, and
// how many times the runner rewrote the records. All of it must stay flat after warm-up; the two
// parts that are rings by design (the WAL, the rotated logs) are shown apart and held to their bound.

const values = benchFlags(
  `npm run bench:soak -- [--pipelines N] [--minutes M] [--checkpoint-secs S] [--sample-secs S] [--ingress N] [--record]`,
  {
    pipelines: { type: 'string', default: '20' },
    minutes: { type: 'string', default: '30' },
    'checkpoint-secs': { type: 'string', default: '5' },
    'sample-secs': { type: 'string', default: '60' },
    /** Records a second to each pipeline (upserts of a fixed key space); 0: idle pipelines. */
    ingress: { type: 'string', default: '0' },
    record: { type: 'boolean', default: false },
  },
);
const PIPELINES = integerFlag('pipelines', values.pipelines, 1, 200);
const MINUTES = integerFlag('minutes', values.minutes, 1, 24 * 60);
const CHECKPOINT_SECS = integerFlag('checkpoint-secs', values['checkpoint-secs'], 1, 3600);
const SAMPLE_SECS = integerFlag('sample-secs', values['sample-secs'], 5, 3600);
const INGRESS = integerFlag('ingress', values.ingress, 0, 100_000);
/** Details alone are written at most this often per pipeline (DETAILS_WRITE_INTERVAL_MS). */
const DETAILS_SECS = 10;
const WARMUP_MIN = 5;
/** min_wal_size (4 MiB) plus what a minute between the compaction loop's CHECKPOINTs writes, with room. */
const WAL_BOUND_MIB = 16;
const PROGRAM =
  'CREATE TABLE t (x INT PRIMARY KEY, s TEXT);\nCREATE VIEW v AS SELECT s, count(*) AS n FROM t GROUP BY s;';

interface Sample {
  minute: number;
  managerPct: number;
  managerRssMiB: number;
  pipelinesPct: number;
  /** The pipeline processes' RSS, summed. */
  pipelinesRssMiB: number;
  /** Records the feeder had accepted by then (--ingress). */
  fed: number;
  /** pgdata without pg_wal: the records, catalogs and indexes. */
  databaseMiB: number;
  /** pg_wal: a ring bounded by min_wal_size/max_wal_size (src/store/pglite-wal-size.ts). */
  walMiB: number;
  /** Pipelines' storage without their logs: state, checkpoints, process files. */
  storageMiB: number;
  /** Pipelines' logs: rotated at LOG_ROTATE_BYTES, two parts kept. */
  logsMiB: number;
  writes: number;
}

const duMiB = (path: string, exclude: string[] = []): number =>
  Number(
    execFileSync('du', ['-sb', ...exclude.map((e) => `--exclude=${e}`), path], { encoding: 'utf8' }).split('\t')[0],
  ) /
  2 ** 20;

const LOGS = ['pipeline.log', 'pipeline.log.1'];
const logsMiB = (pipelinesDir: string): number =>
  readdirSync(pipelinesDir).reduce(
    (n, id) =>
      n + LOGS.reduce((m, f) => m + (statSync(join(pipelinesDir, id, f), { throwIfNoEntry: false })?.size ?? 0), 0),
    0,
  ) /
  2 ** 20;

async function refreshTotal(url: string): Promise<number> {
  return (await list(url)).reduce((n, r) => n + (r.refresh_version ?? 0), 0);
}

async function soak(dataDir: string): Promise<Sample[]> {
  const m = await startManager(dataDir);
  let cleanupFeeder: Feeder | undefined;
  const names = Array.from({ length: PIPELINES }, (_, i) => `soak-${String(i).padStart(3, '0')}`);
  const runtime_config = { fault_tolerance: { checkpoint_interval_secs: CHECKPOINT_SECS } };
  try {
    for (const name of names)
      await call('PUT', `${m.url}/v0/pipelines/${name}`, { name, program_code: PROGRAM, runtime_config });
    await waitAll(m.url, names, (r) => r.program_status === 'Success', 'compiled', { timeoutMs: 600_000 });
    for (const name of names) await call('POST', `${m.url}/v0/pipelines/${name}/start`);
    await waitAll(m.url, names, (r) => r.deployment_status === 'Running', 'Running', { timeoutMs: 600_000 });
    say(
      `${PIPELINES} pipelines Running, checkpoint every ${CHECKPOINT_SECS} s, ${INGRESS} records/s each; sampling every ${SAMPLE_SECS} s for ${MINUTES} min`,
    );
    const feeder = INGRESS > 0 ? feedPipelines(m.url, names, INGRESS) : undefined;
    cleanupFeeder = feeder;
    const samples: Sample[] = [];
    const pipelineCpu = () => pidsWith(join(dataDir, 'pipelines')).reduce((n, pid) => n + (cpuSeconds(pid) || 0), 0);
    let before = {
      at: performance.now(),
      manager: cpuSeconds(m.pid),
      pipelines: pipelineCpu(),
      writes: await refreshTotal(m.url),
    };
    const end = performance.now() + MINUTES * 60_000;
    while (performance.now() < end) {
      await sleep(SAMPLE_SECS * 1000);
      const now = {
        at: performance.now(),
        manager: cpuSeconds(m.pid),
        pipelines: pipelineCpu(),
        writes: await refreshTotal(m.url),
      };
      const secs = (now.at - before.at) / 1000;
      const sample: Sample = {
        minute: (now.at - (end - MINUTES * 60_000)) / 60_000,
        managerPct: ((now.manager - before.manager) / secs) * 100,
        managerRssMiB: statusMiB(m.pid, 'VmRSS'),
        pipelinesPct: ((now.pipelines - before.pipelines) / secs) * 100,
        pipelinesRssMiB: pidsWith(join(dataDir, 'pipelines')).reduce((n, pid) => n + (statusMiB(pid, 'VmRSS') || 0), 0),
        fed: feeder?.sent ?? 0,
        databaseMiB: duMiB(join(dataDir, 'pgdata'), ['pg_wal']),
        walMiB: duMiB(join(dataDir, 'pgdata', 'pg_wal')),
        storageMiB: duMiB(join(dataDir, 'pipelines'), LOGS),
        logsMiB: logsMiB(join(dataDir, 'pipelines')),
        writes: ((now.writes - before.writes) / secs) * 60,
      };
      samples.push(sample);
      say(row(sample));
      before = now;
    }
    if (feeder && feeder.failed > 0) say(`ingress: ${feeder.failed} records refused or failed`);
    return samples;
  } finally {
    await cleanupFeeder?.stop();
    await m.close();
  }
}

const f1 = (v: number): string => v.toFixed(1);
const row = (s: Sample): string =>
  `| ${f1(s.minute)} | ${s.managerPct.toFixed(2)} | ${f1(s.managerRssMiB)} | ${f1(s.pipelinesPct)} | ${f1(s.pipelinesRssMiB)} | ${s.fed} | ${f1(s.databaseMiB)} | ${f1(s.walMiB)} | ${s.storageMiB.toFixed(2)} | ${s.logsMiB.toFixed(2)} | ${f1(s.writes)} |`;

/** Growth from the first sample at or after warm-up to the last, in percent. */
function growth(samples: Sample[], pick: (s: Sample) => number): number {
  const from = samples.find((s) => s.minute >= WARMUP_MIN - 0.01) ?? samples[0];
  const to = samples.at(-1);
  if (!from || !to) return NaN;
  return ((pick(to) - pick(from)) / pick(from)) * 100;
}

/**
 * Growth of a process's RSS: the largest sample of the second half of the run after warm-up against
 * the largest of the first half, in percent. A Node process's RSS swings tens of MiB with its
 * collector's heap sizing (one pipeline at steady input: 267 → 297 → 267 MiB within minutes, its
 * native heap and PGlite's WebAssembly memory flat), and pipelines dip for minutes after start as
 * their collectors shrink the heap the load left: single samples, or a short early window, judge
 * the collector's phase. A leak raises the later peaks.
 */
function peakGrowth(samples: Sample[], pick: (s: Sample) => number): number {
  const warm = samples.filter((s) => s.minute >= WARMUP_MIN - 0.01);
  const end = samples.at(-1)?.minute ?? 0;
  const middle = (WARMUP_MIN + end) / 2;
  const first = warm.filter((s) => s.minute <= middle);
  const second = warm.filter((s) => s.minute > middle);
  if (first.length === 0 || second.length === 0) return growth(samples, pick);
  const from = Math.max(...first.map(pick));
  return ((Math.max(...second.map(pick)) - from) / from) * 100;
}

function verdicts(samples: Sample[]): { text: string; ok: boolean } {
  const warm = samples.filter((s) => s.minute >= WARMUP_MIN - 0.01);
  // A run shorter than the warm-up (a smoke run) is judged on all its samples.
  const after = warm.length > 0 ? warm : samples;
  const cpu = after.reduce((n, s) => n + s.managerPct, 0) / Math.max(1, after.length);
  const ceiling = PIPELINES * (60 / Math.max(DETAILS_SECS, CHECKPOINT_SECS));
  const writes = after.reduce((n, s) => n + s.writes, 0) / Math.max(1, after.length);
  const checks = [
    {
      what: `manager RSS growth, peak of the first half after minute ${WARMUP_MIN} → peak of the second`,
      value: peakGrowth(samples, (s) => s.managerRssMiB),
      unit: '%',
      goal: 5,
    },
    {
      what: `pipelines' RSS growth, peak of the first half after minute ${WARMUP_MIN} → peak of the second`,
      value: peakGrowth(samples, (s) => s.pipelinesRssMiB),
      unit: '%',
      goal: 5,
    },
    {
      what: `database (pgdata without pg_wal) growth, minute ${WARMUP_MIN} → end`,
      value: growth(samples, (s) => s.databaseMiB),
      unit: '%',
      goal: 5,
    },
    {
      what: `WAL (pg_wal), largest sample: a ring of 1 MiB segments, ${WAL_BOUND_MIB} MiB its bound`,
      value: Math.max(...samples.map((s) => s.walMiB)),
      unit: 'MiB',
      goal: WAL_BOUND_MIB,
    },
    {
      what: `pipeline storage (without logs) growth, minute ${WARMUP_MIN} → end`,
      value: growth(samples, (s) => s.storageMiB),
      unit: '%',
      goal: 5,
    },
    {
      what: `pipeline logs, largest sample (rotated: at most ${PIPELINES} × 2 × ${LOG_ROTATE_BYTES / 2 ** 20} MiB)`,
      value: Math.max(...samples.map((s) => s.logsMiB)),
      unit: 'MiB',
      goal: (PIPELINES * 2 * LOG_ROTATE_BYTES) / 2 ** 20,
    },
    { what: 'manager CPU after warm-up (% of one core)', value: cpu, unit: '%', goal: 5 },
    {
      what: `record writes per minute after warm-up (ceiling: ${PIPELINES} × one details write per ${Math.max(DETAILS_SECS, CHECKPOINT_SECS)} s)`,
      value: writes,
      unit: '/min',
      goal: ceiling,
    },
  ];
  const lines = checks.map(
    (c) =>
      `| ${c.what} | ${f1(c.value)} ${c.unit} | < ${f1(c.goal)} ${c.unit} | ${c.value < c.goal ? 'met' : 'NOT met'} |`,
  );
  return {
    text: `| measure | value | goal | |\n|---|---|---|---|\n${lines.join('\n')}\n`,
    ok: checks.every((c) => c.value < c.goal),
  };
}

const HEADER =
  '| minute | manager CPU % | manager RSS MiB | pipelines CPU % | pipelines RSS MiB | records fed | pgdata MiB (no WAL) | pg_wal MiB | pipelines storage MiB (no logs) | pipeline logs MiB | record writes /min |\n|---|---|---|---|---|---|---|---|---|---|---|';
const command = `npm run bench:soak -- ${process.argv.slice(2).join(' ')}`.trim();
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-soak-'));
await runBench(async (cleanups) => {
  cleanups.push(async () => {
    killLeftovers(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const facts = machineFacts('PGlite (embedded)');
  say(`node ${process.version}; ${uptime()}`);
  const samples = await soak(dataDir);
  const { text, ok } = verdicts(samples);
  const body = `${HEADER}\n${samples.map(row).join('\n')}\n\n${text}`;
  process.stdout.write(`\n${body}`);
  if (values.record) {
    const md = `# bench:soak — ${facts.date.slice(0, 10)}\n\n\`${command}\`\n\n${machineTable(facts, uptime())}\n## Every ${SAMPLE_SECS} s\n\n${body}`;
    say(`recorded ${writeResult('soak', facts.date, md)}`);
  }
  return ok;
});
