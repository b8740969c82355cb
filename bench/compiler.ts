import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { message, type SvcProcess } from '../test/support/svc-process.js';
import {
  benchFlags,
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
import { provideDatabase } from './database.js';
import { machineFacts, type MachineFacts } from './report.js';

// `npm run bench:compiler -- [--record] [--runs 5] [--programs 200] [--backend postgres|pglite]`
// The compiler of issue 3 through the real API of a real `svc manager` process (dist/cli.js):
// 1. latency: PUT /v0/pipelines/{name} with a 100-table/100-view program → program_status Success;
// 2. throughput: 200 small programs PUT at once → all Success, in programs/s.
// See bench/README.md.

const USAGE = `usage: npm run bench:compiler -- [options]   (run "npm run build" first)
  --runs N          repeated 100-table/100-view runs after the first (default 5)
  --programs N      small programs compiled at once (default 200)
  --backend B       postgres or pglite; repeatable (default both)
  --record          also write bench/results/<date>-compiler.md (waits up to --max-wait s for load < 2)
  --max-wait S      seconds to wait for the 1-minute load to drop below 2 before recording (default 300)`;

const values = benchFlags(USAGE, {
  runs: { type: 'string', default: '5' },
  programs: { type: 'string', default: '200' },
  backend: { type: 'string', multiple: true },
  record: { type: 'boolean', default: false },
  'max-wait': { type: 'string', default: '300' },
});

const RUNS = integerFlag('runs', values.runs, 1, 100);
const PROGRAMS = integerFlag('programs', values.programs, 1, 10_000);
const MAX_WAIT_S = integerFlag('max-wait', values['max-wait'], 0, 3600);
const BACKENDS = ['postgres', 'pglite'] as const;
type Backend = (typeof BACKENDS)[number];
const chosen = BACKENDS.filter((b) => !values.backend || values.backend.includes(b));
if (chosen.length === 0) throw new Error(`--backend must be one of ${BACKENDS.join(', ')}`);

const TABLES = 100;
const VIEWS = 100;
const POLL_ONE_MS = 15;
const POLL_LIST_MS = 20;
const TIMEOUT_MS = 300_000;
const GOAL_LATENCY_MS = 1_000;
const GOAL_THROUGHPUT = 20;

const pad = (n: number, width = 3): string => String(n).padStart(width, '0');

/**
 * 100 tables (six columns, a primary key) and 100 views over them: projections with a filter,
 * two-table joins, aggregates, and materialized views over views. `salt` makes every program
 * distinct, so no run reuses another's artifact.
 */
export function bigProgram(salt: number): string {
  const lines: string[] = [`-- compiler bench program ${salt}`];
  for (let i = 0; i < TABLES; i++)
    lines.push(
      `CREATE TABLE t_${pad(i)} (id BIGINT NOT NULL PRIMARY KEY, a INT, b VARCHAR, ` +
        `c DOUBLE PRECISION, d TIMESTAMP, e BOOLEAN);`,
    );
  for (let i = 0; i < VIEWS; i++) {
    const t = `t_${pad(i)}`;
    const view = `v_${pad(i)}`;
    switch (i % 4) {
      case 0:
        lines.push(`CREATE VIEW ${view} AS SELECT id, a * 2 AS a2, upper(b) AS ub, c FROM ${t} WHERE e;`);
        break;
      case 1:
        lines.push(
          `CREATE VIEW ${view} AS SELECT x.id, x.a, y.c, y.d FROM ${t} x ` +
            `JOIN t_${pad((i + 1) % TABLES)} y ON x.id = y.id;`,
        );
        break;
      case 2:
        lines.push(
          `CREATE VIEW ${view} AS SELECT b, count(*) AS n, sum(a) AS total, max(d) AS latest ` +
            `FROM ${t} GROUP BY b;`,
        );
        break;
      default:
        lines.push(
          `CREATE MATERIALIZED VIEW ${view} AS SELECT id, a2 + ${salt} AS a3, ub FROM v_${pad(i - 3)} ` +
            `WHERE c > ${i};`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}

const smallProgram = (i: number): string =>
  `CREATE TABLE t (id INT PRIMARY KEY, x INT);\nCREATE VIEW v AS SELECT id, x + ${i} AS y FROM t;\n`;

async function put(url: string, name: string, program: string): Promise<void> {
  const res = await fetch(`${url}/v0/pipelines/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, program_code: program }),
  });
  if (res.status !== 201) throw new Error(`PUT ${name}: ${res.status} ${await res.text()}`);
}

interface StatusRecord {
  name: string;
  program_status: string;
}

const FAILED = new Set(['SqlError', 'RustError', 'SystemError']);

/** Milliseconds from the start of the PUT until GET ?selector=status says Success. */
async function putUntilSuccess(url: string, name: string, program: string): Promise<{ ms: number; putAt: number }> {
  const putAt = Date.now();
  const started = performance.now();
  await put(url, name, program);
  for (;;) {
    const res = await fetch(`${url}/v0/pipelines/${name}?selector=status`);
    const status = ((await res.json()) as StatusRecord).program_status;
    if (status === 'Success') return { ms: performance.now() - started, putAt };
    if (FAILED.has(status)) throw new Error(`${name} ended ${status}`);
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`${name} still ${status} after ${TIMEOUT_MS} ms`);
    await sleep(POLL_ONE_MS);
  }
}

/** What the compiler itself logged for one pipeline: when SQL started, and each stage's duration. */
function stages(svc: SvcProcess, name: string): { sqlStartedAt: number; sqlMs: number; buildMs: number } {
  const mine = svc.lines.filter((l) => l['pipeline-name'] === name);
  const started = mine.find((l) => message(l) === 'SQL compilation started');
  const duration = (prefix: string): number =>
    Number(
      (mine.find((l) => message(l).startsWith(prefix))?.['fields'] as { duration_ms?: number } | undefined)
        ?.duration_ms,
    );
  return {
    sqlStartedAt: Date.parse(String(started?.['timestamp'])),
    sqlMs: duration('SQL compilation finished'),
    buildMs: duration('Build finished'),
  };
}

interface LatencyRun {
  ms: number;
  /** PUT sent → "SQL compilation started" logged (log timestamps have µs, same clock). */
  waitMs: number;
  sqlMs: number;
  buildMs: number;
}

interface Throughput {
  programs: number;
  putsMs: number;
  totalMs: number;
  perSecond: number;
  sqlMedianMs: number;
  buildMedianMs: number;
}

interface BackendResult {
  backend: Backend;
  where: string;
  programChars: number;
  first: LatencyRun;
  runs: LatencyRun[];
  throughput: Throughput;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

async function latencyRun(m: Manager, name: string, salt: number): Promise<LatencyRun> {
  const { ms, putAt } = await putUntilSuccess(m.url, name, bigProgram(salt));
  // The outcome line precedes the status change, but give the pipe a moment to deliver it.
  await m.svc.waitForLine((l) => l['pipeline-name'] === name && message(l).startsWith('Build finished'), 5_000);
  const s = stages(m.svc, name);
  return { ms, waitMs: s.sqlStartedAt - putAt, sqlMs: s.sqlMs, buildMs: s.buildMs };
}

async function throughputRun(m: Manager, count: number): Promise<Throughput> {
  const names = Array.from({ length: count }, (_, i) => `small-${pad(i, 5)}`);
  const started = performance.now();
  await Promise.all(names.map((name, i) => put(m.url, name, smallProgram(i))));
  const putsMs = performance.now() - started;
  const wanted = new Set(names);
  for (;;) {
    const res = await fetch(`${m.url}/v0/pipelines?selector=status`);
    const mine = ((await res.json()) as StatusRecord[]).filter((r) => wanted.has(r.name));
    const failed = mine.filter((r) => FAILED.has(r.program_status));
    if (failed.length > 0) throw new Error(`${failed.length} small programs failed, e.g. ${failed[0]?.name}`);
    if (mine.length === count && mine.every((r) => r.program_status === 'Success')) break;
    if (performance.now() - started > TIMEOUT_MS)
      throw new Error(`small programs not all Success after ${TIMEOUT_MS} ms`);
    await sleep(POLL_LIST_MS);
  }
  const totalMs = performance.now() - started;
  const perStage = names.map((n) => stages(m.svc, n));
  return {
    programs: count,
    putsMs,
    totalMs,
    perSecond: count / (totalMs / 1000),
    sqlMedianMs: median(perStage.map((s) => s.sqlMs)),
    buildMedianMs: median(perStage.map((s) => s.buildMs)),
  };
}

async function measure(backend: Backend, databaseUrl: string | undefined, where: string): Promise<BackendResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-compiler-'));
  const m = await startManager(dataDir, databaseUrl ? ['--database-url', databaseUrl] : []);
  try {
    say(`${backend}: svc manager pid ${m.svc.child.pid} at ${m.url} (${where})`);
    const first = await latencyRun(m, 'big-first', 0);
    say(`${backend}: first 100/100 program ${first.ms.toFixed(0)} ms (includes warm-up)`);
    const runs: LatencyRun[] = [];
    for (let i = 1; i <= RUNS; i++) {
      runs.push(await latencyRun(m, `big-${pad(i)}`, i));
      say(`${backend}: run ${i}: ${runs.at(-1)?.ms.toFixed(0)} ms`);
    }
    const throughput = await throughputRun(m, PROGRAMS);
    say(
      `${backend}: ${PROGRAMS} small programs in ${(throughput.totalMs / 1000).toFixed(2)} s = ` +
        `${throughput.perSecond.toFixed(1)} programs/s`,
    );
    return { backend, where, programChars: bigProgram(0).length, first, runs, throughput };
  } finally {
    await m.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const f0 = (n: number): string => n.toFixed(0);
const f1 = (n: number): string => n.toFixed(1);

function table(results: BackendResult[]): string {
  const rows = [
    '| Backend | Measurement | first | min | median | max | goal | met |',
    '|---|---|--:|--:|--:|--:|--:|:-:|',
  ];
  for (const r of results) {
    const col = (pick: (x: LatencyRun) => number): string[] => {
      const xs = r.runs.map(pick);
      return [f0(pick(r.first)), f0(Math.min(...xs)), f0(median(xs)), f0(Math.max(...xs))];
    };
    const med = median(r.runs.map((x) => x.ms));
    rows.push(
      `| ${r.backend} | 100 tables + 100 views: PUT → Success, ms (${r.runs.length} runs after the first) | ${col((x) => x.ms).join(' | ')} | < ${GOAL_LATENCY_MS} | ${med < GOAL_LATENCY_MS ? 'yes' : 'no'} |`,
      `| ${r.backend} | … of which PUT → "SQL compilation started", ms | ${col((x) => x.waitMs).join(' | ')} | | |`,
      `| ${r.backend} | … of which SQL stage (compiler's log), ms | ${col((x) => x.sqlMs).join(' | ')} | | |`,
      `| ${r.backend} | … of which build stage (compiler's log), ms | ${col((x) => x.buildMs).join(' | ')} | | |`,
    );
    const t = r.throughput;
    rows.push(
      `| ${r.backend} | ${t.programs} small programs PUT at once → all Success: **${f1(t.perSecond)} programs/s** ` +
        `(${(t.totalMs / 1000).toFixed(2)} s; the PUTs took ${f0(t.putsMs)} ms; median SQL stage ${f0(t.sqlMedianMs)} ms, ` +
        `build ${f0(t.buildMedianMs)} ms) | | | ${f1(t.perSecond)} | | ≥ ${GOAL_THROUGHPUT} | ${t.perSecond >= GOAL_THROUGHPUT ? 'yes' : 'no'} |`,
    );
  }
  return rows.join('\n');
}

function render(command: string, facts: MachineFacts, results: BackendResult[], uptimeAfter: string): string {
  return `# Compiler benchmark, ${facts.date.slice(0, 10)}

\`${command}\`: a real \`svc manager\` process (\`node dist/cli.js manager --port 0\`, compiler inside,
concurrency 4), driven over loopback through \`/v0\`. Per backend: one PUT of a ${TABLES}-table/${VIEWS}-view
program (${results[0]?.programChars ?? 0} characters) timed until \`GET …?selector=status\` (polled every
${POLL_ONE_MS} ms) says \`program_status: Success\`, first alone (includes warm-up), then ${RUNS} more, each with
a distinct program; then ${PROGRAMS} distinct small programs PUT concurrently, timed until the status list
(polled every ${POLL_LIST_MS} ms) shows all of them Success.

## Results

${table(results)}

Backends: ${results.map((r) => `**${r.backend}**: ${r.where}`).join('; ')}.
The breakdown rows come from the compiler's own log lines ("SQL compilation started", "… finished … in N ms");
PUT → started is measured between this process's clock at the PUT and the log line's timestamp (same machine).

${machineTable(facts, uptimeAfter)}`;
}

const command = `npm run bench:compiler -- ${process.argv.slice(2).join(' ')}`.trim();
await runBench(async (cleanups) => {
  if (values.record) await waitForQuiet(2, MAX_WAIT_S);
  say(`node ${process.version}; ${uptime()}`);
  const before = machineFacts('not used');
  const results: BackendResult[] = [];
  let postgresVersion = 'not used';
  for (const backend of chosen) {
    if (backend === 'postgres') {
      const database = await provideDatabase();
      cleanups.push(() => database.dispose());
      postgresVersion = database.serverVersion;
      results.push(await measure(backend, database.url, `PostgreSQL ${database.serverVersion}, ${database.where}`));
      await cleanups.pop()?.();
    } else {
      results.push(await measure(backend, undefined, 'embedded PGlite under --data-dir (no --database-url)'));
    }
  }
  const facts = { ...before, postgres: postgresVersion };
  const uptimeAfter = uptime();
  process.stdout.write(`\n${table(results)}\n`);
  if (values.record)
    say(`recorded ${writeResult('compiler', facts.date, render(command, facts, results, uptimeAfter))}`);
  return true;
});
