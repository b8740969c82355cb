import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProgramEngine } from '../src/engine/engine.js';
import { openEngine } from '../src/engine/open.js';
import type { Change } from '../src/engine/types.js';
import { CheckpointStore } from '../src/pipeline/checkpoints.js';
import { benchFlags, integerFlag, machineTable, runBench, say, uptime, writeResult } from './common.js';
import { machineFacts } from './report.js';

// `npm run bench:checkpoint -- [--rows 10000000] [--record]`
// A checkpoint of a large state and its restore, as a pipeline does them (the engine's paged dump
// into the CheckpointStore; a fresh engine restored from the file). Records the time of each, the
// file's size, and how far the process's peak RSS rose above the state held in memory. Side by side
// in the same run, the ceiling: writing the same number of bytes to the same disk in one call and
// flushing them. See bench/README.md.

const USAGE = `usage: npm run bench:checkpoint -- [options]
  --rows N      rows of the table checkpointed (default 10000000)
  --record      also write bench/results/<date>-checkpoint.md
  --restore D   (internal) restore the checkpoint in D in this process and print what it measured`;

const values = benchFlags(USAGE, {
  rows: { type: 'string', default: '10000000' },
  record: { type: 'boolean', default: false },
  restore: { type: 'string' },
});
const ROWS = integerFlag('rows', values.rows, 1, 1_000_000_000);
const BATCH = 100_000;
const PROGRAM = `
  CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, amount numeric(10,2) NOT NULL)
    WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW per_kind AS SELECT kind, count(*) AS n, sum(amount) AS total FROM events GROUP BY kind;`;

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
/** The kernel's peak resident size of this process (VmHWM), reset by writing 5 to clear_refs. */
const peakRss = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');
const rss = () => process.memoryUsage().rss;

// The 50 kinds as 50 strings, as a decoded stream has them (JSON.parse makes one string of each
// short value it meets again): a string made per row (`k${id % 50}`) held 10,000,000 strings of
// their own in the native table, ~23 bytes each, that no pipeline holds.
const KINDS = Array.from({ length: 50 }, (_, k) => `k${k}`);

async function fill(engine: ProgramEngine) {
  const t0 = performance.now();
  for (let from = 0; from < ROWS; from += BATCH) {
    const n = Math.min(BATCH, ROWS - from);
    const changes: Change[] = Array.from({ length: n }, (_, k) => {
      const id = from + k;
      return { weight: 1, row: { id, kind: KINDS[id % KINDS.length]!, amount: (id % 100_000) / 100 } };
    });
    const r = await engine.ingest('events', changes);
    if (r.errors.length > 0) throw new Error(`rejected: ${JSON.stringify(r.errors.slice(0, 3))}`);
    await engine.step();
    if ((from / BATCH) % 20 === 19) say(`${from + n} rows in`);
  }
  return (performance.now() - t0) / 1000;
}

async function measure(dir: string) {
  const engine = await openEngine(PROGRAM);
  const fillS = await fill(engine);
  const heldRss = rss();
  const store = new CheckpointStore(dir);
  await store.open();
  resetPeak();
  const t0 = performance.now();
  const written = await store.write({ program_checksum: 'bench', now_ms: 0, views: ['per_kind'] }, async (page) => {
    await engine.dump(page);
    return {};
  });
  const writeS = (performance.now() - t0) / 1000;
  const writePeak = peakRss();
  const [file] = await readdir(store.dir);
  const bytes = (await stat(join(store.dir, file ?? ''))).size;
  const before = await engine.query('SELECT kind, n, total FROM per_kind ORDER BY kind');
  await engine.close();
  // The restore runs in a process of its own, as a restarted pipeline does: its memory is its own.
  const child = execFileSync(process.execPath, [...process.execArgv, process.argv[1] ?? '', '--restore', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const r = JSON.parse(child) as Restore;
  if (r.restoredRows !== ROWS) throw new Error(`restored ${r.restoredRows} rows, not ${ROWS}`);
  if (r.view !== JSON.stringify(before.rows)) throw new Error('the view differs after restore');
  return { fillS, heldRss, writeS, writePeak, bytes, rows: written.rows, ...r };
}

interface Restore {
  restoredRows: number;
  openS: number;
  view: string;
  restoreBase: number;
  restoreS: number;
  restorePeak: number;
}

async function restoreIn(dir: string): Promise<Restore> {
  const fresh = await openEngine(PROGRAM);
  const t0 = performance.now();
  const { latest } = await new CheckpointStore(dir).open();
  const openS = (performance.now() - t0) / 1000;
  if (!latest) throw new Error('the checkpoint was not read back');
  const restoreBase = rss();
  resetPeak();
  const t1 = performance.now();
  const restored = await fresh.restore(latest, true);
  const restoreS = (performance.now() - t1) / 1000;
  const restorePeak = peakRss();
  const after = await fresh.query('SELECT kind, n, total FROM per_kind ORDER BY kind');
  await fresh.close();
  const restoredRows = restored.restored['events'] ?? 0;
  return { restoredRows, view: JSON.stringify(after.rows), openS, restoreBase, restoreS, restorePeak };
}

/** The disk's own pace for the same bytes: one write of a buffer that size, flushed. */
function diskCeiling(dir: string, bytes: number): number {
  const buffer = Buffer.alloc(bytes, 120);
  const path = join(dir, 'ceiling');
  const t0 = performance.now();
  writeFileSync(path, buffer, { flush: true });
  const s = (performance.now() - t0) / 1000;
  rmSync(path);
  return s;
}

if (values.restore !== undefined) {
  process.stdout.write(JSON.stringify(await restoreIn(values.restore)));
  process.exit(0);
}

await runBench(async (cleanups) => {
  const facts = machineFacts('PGlite (embedded)');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-checkpoint-'));
  cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  const m = await measure(dir);
  const ceilingS = diskCeiling(dir, m.bytes);
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const report = `# bench:checkpoint — ${facts.date}

A table of ${fmt(ROWS)} rows (bigint, text, numeric) and a GROUP BY view over it, filled through the engine in
steps of ${fmt(BATCH)}; then one checkpoint written as a pipeline writes it (the engine's paged dump into the
CheckpointStore, flushed) and restored into a fresh engine in a new process (as a restarted pipeline), its rows counted and its view compared.
Command: \`npm run bench:checkpoint -- ${process.argv.slice(2).join(' ')}\`

| measure | value |
|---|---|
| rows in the checkpoint | ${fmt(m.rows)} |
| checkpoint file | ${mib(m.bytes)} MiB |
| fill (ingest + step), s | ${m.fillS.toFixed(1)} |
| RSS holding the state | ${mib(m.heldRss)} MiB |
| checkpoint written, s | ${m.writeS.toFixed(1)} (${fmt(m.rows / m.writeS)} rows/s) |
| peak RSS while writing | ${mib(m.writePeak)} MiB (+${mib(m.writePeak - m.heldRss)} MiB over holding the state) |
| ceiling: the same bytes written and flushed in one call, s | ${ceilingS.toFixed(1)} |
| store opened, its checksum verified, s | ${m.openS.toFixed(1)} |
| restored into a fresh engine, s | ${m.restoreS.toFixed(1)} (${fmt(m.rows / m.restoreS)} rows/s) |
| peak RSS of the restoring process | ${mib(m.restorePeak)} MiB (+${mib(m.restorePeak - m.restoreBase)} MiB during the restore; the process that filled the state held ${mib(m.heldRss)}) |

${machineTable(facts, uptime())}`;
  process.stdout.write(`${report}\n`);
  if (values.record) say(`recorded ${writeResult('checkpoint', facts.date, report)}`);
  return true;
});
