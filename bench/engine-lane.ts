import { mkdtempSync, rmSync } from 'node:fs';
import { STORAGE_DEFAULTS } from '../src/model/runtime-config-parts.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineCodec, HostedEngine } from '../src/engine/host/hosted.js';
import { startThreadEngine, ThreadEngine } from '../src/engine/host/thread-engine.js';
import type { BodyFormat } from '../src/model/data-queries.js';
import { openEngine } from '../src/engine/open.js';
import { engineDump } from '../src/pglite/shipped-dump.js';
import { StepScheduler } from '../src/engine/scheduler.js';
import { startPipelineApp } from '../test/support/pipeline-controller.js';
import { ENGINE_CODEC_URL } from '../src/formats/engine-codec.js';
import { collectEagerly } from '../src/engine/host/heap.js';
import { httpLatency, httpThroughput, pushBatch, readEgress } from './engine-http.js';
import { benchFlags, fullCollector, integerFlag, procStatusMiB, say, sleep } from './common.js';
import { laneById, type LaneResult } from './engine-lanes.js';
import { batchJson, customerChanges, mib, percentile, PROGRAM, ViewSums } from './engine-workload.js';

// One of our engines on bench:engine's workload, in a process of its own (bench/engine.ts starts it
// once per lane, so each lane's RSS is its own): throughput, then latency; prints a LaneResult.

const USAGE = `usage: node --import tsx bench/engine-lane.ts --lane ID [--records N] [--batch N] [--latency S] [--via engine|thread|http] [--watch all|none] [--dump] [--eager-from MIB]`;
const values = benchFlags(USAGE, {
  lane: { type: 'string', default: 'pglite' },
  records: { type: 'string', default: '1000000' },
  batch: { type: 'string', default: '10000' },
  latency: { type: 'string', default: '10' },
  via: { type: 'string', default: 'engine' },
  watch: { type: 'string', default: 'all' },
  dump: { type: 'boolean', default: false },
  'eager-from': { type: 'string', default: '0' },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);
const LATENCY_S = integerFlag('latency', values.latency, 0, 3600);
const WATCH = values.watch === 'all' || values.dump;
/**
 * Eager collection from this RSS on (0: never), as a pipeline switches it on under memory pressure
 * (src/pipeline/eager-collection.ts): what it saves and costs, without a budget's input hold.
 */
const EAGER_FROM_MIB = integerFlag('eager-from', values['eager-from'], 0, 1_000_000);
const lane = laneById(values.lane);
if (lane.kind !== 'ours' || 'unavailable' in lane.open) throw new Error(`lane ${lane.id} is not one of ours to run`);
const open = lane.open;

/**
 * The engine starts from an initdb dump, as a pipeline does (the build's, else the one engines started
 * from src/ write once and reuse): without one PGlite runs initdb in the lane's process, which measured 434 MiB of
 * RSS against 111 MiB loaded from the dump, and no pipeline pays it.
 */
const INITDB_DUMP = engineDump();

/** The engine on this thread (openEngine) or on a worker thread (src/engine/host), as the lane asks. */
type Engine = HostedEngine;

/** The JS heap now (as V8 sized it), what a full collection leaves of it, and the typed arrays, MiB. */
function heapNow() {
  const before = process.memoryUsage();
  fullCollector()();
  const after = process.memoryUsage();
  return { totalMiB: mib(before.heapTotal), liveMiB: mib(after.heapUsed), offHeapMiB: mib(after.arrayBuffers) };
}

/** A batch of orders as the wire carries it (bench:engine's records). */
const ORDERS_FORMAT: BodyFormat = {
  format: 'json',
  update_format: 'insert_delete',
  array: true,
  json_flavor: 'default',
};

/** The wire formats, as the engine's thread of a pipeline loads them (engine-worker.ts). */
const CODEC = (await import(ENGINE_CODEC_URL)) as EngineCodec;

/**
 * Puts a batch of orders in as the JSON text a pipeline's ingress hands the engine
 * (data/ingress.ts): decoded by the engine on this thread, or sent to the engine's thread and
 * decoded there; either way on the shard threads too where there are some (ingestDecoding).
 */
async function ingestOrders(engine: Engine, from: number, n: number): Promise<{ seq: number; errors: unknown[] }> {
  const text = batchJson(from, n);
  const { result, decoded } =
    engine instanceof ThreadEngine
      ? await engine.ingestBody('orders', text, ORDERS_FORMAT).result
      : await engine.ingestDecoding!('orders', text, ORDERS_FORMAT, CODEC);
  return { seq: result.seq, errors: [...decoded.errors, ...result.errors] };
}

async function throughput(engine: Engine, sums: ViewSums | undefined) {
  const stepMs: number[] = [];
  let eager = false;
  const t0 = performance.now();
  for (let from = 0; from < RECORDS; from += BATCH) {
    const n = Math.min(BATCH, RECORDS - from);
    const { errors } = await ingestOrders(engine, from, n);
    if (errors.length > 0) throw new Error(`rejected records: ${JSON.stringify(errors.slice(0, 3))}`);
    const s0 = performance.now();
    const step = await engine.step();
    stepMs.push(performance.now() - s0);
    if (EAGER_FROM_MIB > 0 && !eager && mib(process.memoryUsage.rss()) >= EAGER_FROM_MIB) {
      eager = true;
      collectEagerly(true);
      say(`${lane.id}: eager collection from ${from + n} records (RSS ${mib(process.memoryUsage.rss())} MiB)`);
    }
    // Only with --dump: on a worker thread the changes come as text, parsed only when read (as a
    // JSON egress stream never does), so reading them here would time a parse no pipeline makes.
    if (sums) for (const [view, changes] of step.outputs) sums.add(view, changes);
    if (stepMs.length % 20 === 0) say(`${lane.id}: ${from + n} records, last step ${stepMs.at(-1)!.toFixed(0)} ms`);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, recordsPerS: RECORDS / seconds, stepMs, rssMiB: mib(process.memoryUsage().rss) };
}

/** 1,000 records/s in batches of 100 every 100 ms, steps by the scheduler: ingest call → step done. */
async function latency(engine: Engine, firstId: number) {
  const scheduler = new StepScheduler(engine, {
    minBatchRecords: 0,
    maxDelayMs: 0,
    enabled: () => true,
    onError: (error) => say(`step failed: ${String(error)}`),
  });
  const waiting = new Map<number, number>();
  const samples: number[] = [];
  const off = engine.onStep((r) => {
    for (const [seq, at] of waiting)
      if (seq <= r.appliedSeq) {
        samples.push(performance.now() - at);
        waiting.delete(seq);
      }
  });
  const off2 = engine.onIngest(() => scheduler.inputArrived());
  let id = firstId;
  const end = performance.now() + LATENCY_S * 1000;
  while (performance.now() < end) {
    const at = performance.now();
    const { seq } = await ingestOrders(engine, id, 100);
    waiting.set(seq, at);
    id += 100;
    await sleep(Math.max(0, 100 - (performance.now() - at)));
  }
  await scheduler.idle();
  off();
  off2();
  scheduler.stop();
  return samples;
}

const summary = (samples: number[]) =>
  samples.length > 0
    ? { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), samples: samples.length }
    : null;

/** The engine in this process, driven through its API: on this thread, or on a worker thread as the pipeline runs it. */
async function viaEngine(rules: string[], threaded: boolean) {
  const onMaintenance = (view: string, rule: string) => rules.push(`${view}: ${rule}`);
  // Storage for its scratch files, as a pipeline with `runtime_config.storage` (its defaults) has (boot.ts).
  const spill = { dir: mkdtempSync(join(tmpdir(), 'svc-bench-spill-')), minBytes: STORAGE_DEFAULTS.min_storage_bytes };
  const engine: Engine = threaded
    ? await startThreadEngine({
        ...open.options,
        initdbDump: INITDB_DUMP,
        codec: ENGINE_CODEC_URL,
        spill,
        onMaintenance,
      }).load(PROGRAM)
    : await openEngine(PROGRAM, {
        ...open.options,
        initdbDump: INITDB_DUMP,
        codec: ENGINE_CODEC_URL,
        spill,
        onMaintenance,
      });
  try {
    const sums = values.dump ? new ViewSums() : undefined;
    if (WATCH) for (const r of engine.relations()) if (r.kind === 'view') engine.watch(r.name);
    await engine.ingest('customers', customerChanges());
    const first = await engine.step();
    if (sums) for (const [view, changes] of first.outputs) sums.add(view, changes);
    const loadedRssMiB = mib(process.memoryUsage().rss);
    // The heap of this thread: the engine's only when the engine runs on it (--via engine).
    const run = { ...(await throughput(engine, sums)), loadedRssMiB, heap: threaded ? undefined : heapNow() };
    const lat = LATENCY_S > 0 ? summary(await latency(engine, RECORDS)) : null;
    return { ...run, latency: lat, views: sums?.contents() ?? null };
  } finally {
    await engine.close();
    rmSync(spill.dir, { recursive: true, force: true });
  }
}

/** The pipeline's HTTP app in this process (controller, scheduler, routes) on loopback. */
async function viaHttp(rules: string[]) {
  if (values.dump) throw new Error('--dump reads step results: use --via engine');
  const app = await startPipelineApp(PROGRAM, open.runtimeConfig);
  const streams = new AbortController();
  try {
    const relations = app.ctl.dataEngine?.relations() ?? [];
    rules.push(...relations.filter((r) => r.maintenance).map((r) => `${r.name}: ${r.maintenance}`));
    const views = relations.filter((r) => r.kind === 'view').map((r) => r.name);
    if (WATCH) await readEgress(app, views, streams.signal);
    await pushBatch(app, 'customers', JSON.stringify(customerChanges().map((c) => ({ insert: c.row }))));
    const loadedRssMiB = mib(process.memoryUsage().rss);
    const t = await httpThroughput(app, RECORDS, BATCH, batchJson);
    const run = { ...t, recordsPerS: RECORDS / t.seconds, rssMiB: mib(process.memoryUsage().rss), loadedRssMiB };
    const lat = LATENCY_S > 0 ? summary(await httpLatency(app, LATENCY_S, RECORDS, batchJson)) : null;
    return { ...run, latency: lat, views: null };
  } finally {
    streams.abort();
    await app.close();
  }
}

const rules: string[] = [];
const run = values.via === 'http' ? await viaHttp(rules) : await viaEngine(rules, values.via === 'thread');
const result: LaneResult = { ...run, peakRssMiB: procStatusMiB('self', 'VmHWM'), rules };
process.stdout.write(`${JSON.stringify(result)}\n`);
