import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, waitAll } from './api-client.js';
import {
  benchFlags,
  integerFlag,
  machineTable,
  procStatusMiB,
  runBench,
  say,
  startManager,
  uptime,
  writeResult,
} from './common.js';
import { machineFacts } from './report.js';

// `npm run bench:first-start`: what a newcomer waits for after `POST /start` on a fresh `svc manager`
// data dir (README: the walk through the API), with the engine's initdb dump that the build ships
// (dist/engine-initdb.tar) and without it (as before: the first start on a data dir ran initdb).
// Side by side, the floor of any start: a bare `svc --version` process. Each try is a new data dir
// and manager; the pipeline's own `program loaded` line says where its start went. The manager's
// RSS too: without the dump its record database and the compiler's scratch database run initdb in
// its process (src/store/pglite-database.ts).

const USAGE = `npm run bench:first-start -- [--tries N] [--record]
  --tries N   fresh data dirs per mode (default 3)
  --record    also write bench/results/<date>-first-start.md`;

const flags = benchFlags(USAGE, {
  tries: { type: 'string', default: '3' },
  record: { type: 'boolean', default: false },
});
const tries = integerFlag('tries', flags.tries, 1, 20);
const SHIPPED = fileURLToPath(new URL('../dist/engine-initdb.tar', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PROGRAM =
  'CREATE TABLE orders (id INT, customer TEXT);\nCREATE VIEW per_customer AS SELECT customer, count(*) FROM orders GROUP BY customer;';

interface Try {
  /** POST /start → deployment_status Running, as the API shows it. */
  toRunningMs: number;
  /** The pipeline process's own `program loaded` line: total, and when its engine was up. */
  loadedMs: number;
  engineMs: number;
  /** `svc manager`'s RSS when it says it is ready, with the pipeline Running, and its peak, MiB. */
  readyMiB: number;
  runningMiB: number;
  peakMiB: number;
}

async function oneTry(): Promise<Try> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-first-start-'));
  const m = await startManager(dir);
  const readyMiB = procStatusMiB(m.pid, 'VmRSS');
  try {
    await call('POST', `${m.url}/v0/pipelines`, { name: 'orders', program_code: PROGRAM });
    await waitAll(m.url, ['orders'], (r) => r.program_status === 'Success', 'compiled');
    const t0 = performance.now();
    await call('POST', `${m.url}/v0/pipelines/orders/start`);
    await waitAll(m.url, ['orders'], (r) => r.deployment_status === 'Running', 'running');
    const toRunningMs = performance.now() - t0;
    const runningMiB = procStatusMiB(m.pid, 'VmRSS');
    const peakMiB = procStatusMiB(m.pid, 'VmHWM');
    const log = await (await fetch(`${m.url}/v0/pipelines/orders/logs?follow=false`)).text();
    const loaded = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { fields?: Record<string, unknown> })
      .find((l) => l.fields?.['message'] === 'program loaded')?.fields;
    if (!loaded) throw new Error('the pipeline logged no "program loaded" line');
    const engineMs = Number(loaded['engine_ms']);
    return { toRunningMs, loadedMs: Number(loaded['ms']), engineMs, readyMiB, runningMiB, peakMiB };
  } finally {
    await m.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The floor: a process of the same program that starts and exits (`svc --version`). */
function bareProcessMs(): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [CLI, '--version'], { stdio: 'ignore' });
  return performance.now() - t0;
}

await runBench(async (cleanups) => {
  if (!existsSync(SHIPPED)) throw new Error(`${SHIPPED} is missing: run "npm run build" first`);
  const facts = machineFacts('not used');
  const aside = `${SHIPPED}.bench-aside`;
  cleanups.push(async () => {
    if (existsSync(aside)) renameSync(aside, SHIPPED);
  });
  const rows: string[] = [];
  for (const mode of ['shipped dump', 'no shipped dump'] as const) {
    if (mode === 'no shipped dump') renameSync(SHIPPED, aside);
    const runs: Try[] = [];
    for (let i = 0; i < tries; i++) {
      runs.push(await oneTry());
      say(`${mode}, try ${i + 1}: ${JSON.stringify(runs.at(-1))}`);
    }
    if (mode === 'no shipped dump') renameSync(aside, SHIPPED);
    const p50 = (k: keyof Try) => median(runs.map((r) => r[k])).toFixed(0);
    const memory = `${p50('readyMiB')} | ${p50('runningMiB')} | ${p50('peakMiB')}`;
    rows.push(`| ${mode} | ${p50('toRunningMs')} | ${p50('loadedMs')} | ${p50('engineMs')} | ${memory} |`);
  }
  const bare = median(Array.from({ length: tries }, bareProcessMs)).toFixed(0);
  rows.push(`| floor: a bare \`svc --version\` process | ${bare} | – | – | – | – | – |`);
  const table = [
    '| mode | POST /start → Running, ms (p50) | pipeline "program loaded", ms (p50) | of which engine up, ms (p50) | manager RSS when ready, MiB | with the pipeline Running | manager peak RSS |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  const markdown = `# First start of a pipeline on a fresh data dir\n\n${table}\n\n${tries} tries per mode, each a new data dir and \`svc manager\`.\n\n${machineTable(facts, uptime(), { postgres: undefined })}`;
  process.stdout.write(`${markdown}\n`);
  if (flags.record) say(`recorded in ${writeResult('first-start', facts.date, markdown)}`);
  return true;
});
