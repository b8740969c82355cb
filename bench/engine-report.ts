import type { Lane, LaneResult } from './engine-lanes.js';
import { median, percentile } from './engine-workload.js';

// bench:engine's result as markdown: one table of every engine, the issue's goals read from it, the
// ceilings of the same rows, and each lane's step details.

export interface LaneRow {
  lane: Lane;
  /** undefined: the engine does not exist yet (`why` says so). */
  result: LaneResult | undefined;
  why: string;
}

export interface ReportInput {
  date: string;
  command: string;
  records: number;
  batch: number;
  via: 'engine' | 'thread' | 'http';
  watch: boolean;
  checked: string;
  rows: LaneRow[];
  baselineId: string;
  /** pair: two native-1 lanes at once, a process each (records/s of both), when both native lanes ran. */
  ceilings: { copy: number; pgliteCopy: number; floor: number; pair?: number };
  machine: string;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(1);
const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : '—');
const firstLast = (r: LaneResult) => ({ first: median(r.stepMs.slice(0, 10)), last: median(r.stepMs.slice(-10)) });

function mainTable(input: ReportInput, base: LaneResult | undefined): string {
  const lines = input.rows.map(({ lane, result: r, why }) => {
    if (!r) return `| ${lane.label} | ${why} | | | | | | |`;
    const { first, last } = firstLast(r);
    const lat = r.latency ? `${ms(r.latency.p50)} / ${ms(r.latency.p99)}` : 'skipped';
    return `| ${lane.label} | ${fmt(r.recordsPerS)} | ${ratio(r.recordsPerS, base?.recordsPerS)} | ${ms(first)} / ${ms(last)} (${(last / first).toFixed(2)}×) | ${lat} | ${Math.round(r.rssMiB)} | ${Math.round(r.peakRssMiB)} | ${ratio(r.peakRssMiB, base?.peakRssMiB)} |`;
  });
  return `| engine | records/s | vs dbsp 1 worker | median step first 10 / last 10, ms | ingress→egress p50 / p99 ms at 1,000 records/s | RSS after ${fmt(input.records)} orders, MiB | peak RSS, MiB | peak RSS vs dbsp 1 worker |
|---|---|---|---|---|---|---|---|
${lines.join('\n')}`;
}

/** Where native-1's RSS after the run is, when the lane could tell (the engine on its own thread). */
function heapParts(n1: LaneResult | undefined): string {
  if (!n1) return 'native path not available';
  if (!n1.heap) return 'measured with --via engine only (here the engine is on another thread)';
  return `${fmt(n1.heap.totalMiB)} MiB; ${fmt(n1.heap.liveMiB)} MiB; ${fmt(n1.heap.offHeapMiB)} MiB`;
}

/** Issue 28's goals for the native path, from this run's figures. */
function goals(input: ReportInput, base: LaneResult | undefined): string {
  const get = (id: string) => input.rows.find((r) => r.lane.id === id)?.result;
  const n1 = get('native-1');
  const n2 = get('native-2');
  const missing = 'native path not available';
  const line = (goal: string, value: string) => `| ${goal} | ${value} |`;
  const steps = (r: LaneResult | undefined) =>
    r ? `${(firstLast(r).last / firstLast(r).first).toFixed(2)}×` : missing;
  return `| goal (issue 28) | this run |
|---|---|
${[
  line(
    'native 1 worker ≥ 50 % of dbsp 1 worker, records/s',
    n1 && base ? `${((100 * n1.recordsPerS) / base.recordsPerS).toFixed(1)} %` : missing,
  ),
  line('native 2 workers ≥ 1.6 × native 1 worker', n1 && n2 ? ratio(n2.recordsPerS, n1.recordsPerS) : missing),
  line(
    "(the 2 cores' ceiling: two native 1 worker processes at once, × native 1 worker)",
    n1 && input.ceilings.pair ? ratio(input.ceilings.pair, n1.recordsPerS) : missing,
  ),
  line('native RSS after the run ≤ 3 × dbsp 1 worker peak', n1 && base ? ratio(n1.rssMiB, base.peakRssMiB) : missing),
  line(
    '(of which: native RSS before the first order; RSS the orders added)',
    n1?.loadedRssMiB !== undefined ? `${fmt(n1.loadedRssMiB)} MiB; ${fmt(n1.rssMiB - n1.loadedRssMiB)} MiB` : missing,
  ),
  line('(of the RSS after the run: JS heap; of it live after a full collection; typed arrays)', heapParts(n1)),
  line('native median step last 10 ≤ 1.2 × first 10', steps(n1)),
  line('native p99 ingress→egress < 20 ms at 1,000 records/s', n1?.latency ? `${ms(n1.latency.p99)} ms` : missing),
].join('\n')}`;
}

function ceilings(input: ReportInput): string {
  const { copy, pgliteCopy, floor, pair } = input.ceilings;
  const n2 = input.rows.find((x) => x.lane.id === 'native-2')?.result;
  const pairRows = pair
    ? `\n| two native-1 lanes at once, a process each (what the cores give this workload with nothing shared) | ${fmt(pair)} |\n| native path, 2 workers / that | ${n2 ? `${((100 * n2.recordsPerS) / pair).toFixed(1)} %` : 'not run'} |`
    : '';
  const share = (id: string) => {
    const r = input.rows.find((x) => x.lane.id === id)?.result;
    return r ? `${((100 * r.recordsPerS) / copy).toFixed(1)} %` : 'not run';
  };
  return `| ceiling (same rows, same run) | records/s |
|---|---|
| COPY into plain PostgreSQL | ${fmt(copy)} |
| COPY into a plain table of PGlite (the evaluator of today's path) | ${fmt(pgliteCopy)} |
| PGlite, batches staged and stored with no view (the floor of any engine it evaluates) | ${fmt(floor)} |
| that floor / COPY into plain PostgreSQL | ${((100 * floor) / copy).toFixed(1)} % |
| PGlite path / COPY into plain PostgreSQL | ${share('pglite')} |
| native path, 1 worker / COPY into plain PostgreSQL | ${share('native-1')} |
| dbsp, 1 worker / COPY into plain PostgreSQL | ${share('dbsp-1')} |${pairRows}`;
}

function details(input: ReportInput): string {
  const lines = input.rows.flatMap(({ lane, result: r }) => {
    if (!r) return [];
    const step100 = r.stepMs[99] ?? r.stepMs.at(-1) ?? NaN;
    return [
      `| ${lane.label} | ${ms(r.stepMs[0] ?? NaN)} | ${ms(step100)} | ${ms(percentile(r.stepMs, 0.5))} / ${ms(Math.max(...r.stepMs))} | ${r.seconds.toFixed(1)} | ${r.latency?.samples ?? 0} | ${r.rules.join('; ')} |`,
    ];
  });
  return `| engine | step 1 ms | step 100 ms | step p50 / max ms | throughput phase s | latency batches | views kept by |
|---|---|---|---|---|---|---|
${lines.join('\n')}`;
}

export function engineReport(input: ReportInput): string {
  const base = input.rows.find((r) => r.lane.id === input.baselineId)?.result;
  const how =
    input.via === 'http'
      ? "ours: each batch POSTed to the pipeline's ingress route and waited for (completion_status), steps by its scheduler"
      : `ours: each batch's JSON text decoded by the engine with the wire formats' codec (as a pipeline's ingress has it decoded; with workers, on the shard threads too) and one step per batch through the DataEngine API, in a child process (the engine ${input.via === 'thread' ? 'on a worker thread' : 'on the calling thread'})`;
  return `# bench:engine — ${input.date}

${fmt(input.records)} orders in JSON batches of ${fmt(input.batch)} (1,000 customers first), one step per batch; every engine in a process of its own. ${how}; dbsp: each batch made as JSON text and decoded with serde_json, appended, one transaction, every view's changes read (\`accumulate_output\`). Changes read out: ${input.watch ? 'every view' : 'none (views kept, nothing watches them)'}.
Command: \`${input.command}\`
Check (before the measured runs): ${input.checked}.

${mainTable(input, base)}

Records/s: the throughput phase (make the batch's JSON, decode, ingest, step, read the changes) over its wall time. A step: ours \`step()\`, dbsp its transaction and reading the changes. RSS: VmRSS at the end of the throughput phase; peak RSS: VmHWM at the end of the run (after the latency phase).

${goals(input, base)}

${ceilings(input)}

${details(input)}

${input.machine}`;
}
