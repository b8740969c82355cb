import { parseMetrics } from './prometheus.ts';

/** What /stats answers that the health charts read (docs/data-path.md, "Statistics"). */
export interface Stats {
  global_metrics: {
    rss_bytes: number;
    total_input_records: number;
    total_completed_steps: number;
    buffered_input_records: number;
    /** Milliseconds spent in steps so far, and in the last one. */
    total_step_msecs: number;
    last_step_msecs: number;
    /** Bytes of the pipeline's storage in use (its kept checkpoints). */
    storage_bytes: number;
  };
  inputs: Endpoint[];
  outputs: Endpoint[];
}

export interface Endpoint {
  endpoint_name: string;
  config: { stream?: string };
  metrics: Record<string, number | boolean>;
  fatal_error?: string | null;
  paused?: boolean;
}

/** One reading of /stats and /metrics, taken at `t` (Unix seconds). */
export interface Sample {
  t: number;
  input: number;
  output: number;
  steps: number;
  stepMsTotal: number;
  lastStepMs: number;
  storageBytes: number;
  rss: number;
  heap: number;
  tableRows: number;
  checkpoints: number;
}

export function sampleOf(t: number, stats: Stats, metricsText: string): Sample {
  const m = parseMetrics(metricsText);
  return {
    t,
    input: stats.global_metrics.total_input_records,
    output: stats.outputs.reduce((a, o) => a + Number(o.metrics['transmitted_records'] ?? 0), 0),
    steps: stats.global_metrics.total_completed_steps,
    stepMsTotal: stats.global_metrics.total_step_msecs,
    lastStepMs: stats.global_metrics.last_step_msecs,
    storageBytes: stats.global_metrics.storage_bytes,
    rss: stats.global_metrics.rss_bytes,
    heap: m.get('svc_nodejs_heap_size_used_bytes') ?? 0,
    tableRows: m.get('svc_pipeline_table_rows') ?? 0,
    checkpoints: m.get('svc_pipeline_checkpoints') ?? 0,
  };
}

/** Counters → rates per second between successive samples; gauges as read. One array per chart series. */
export function seriesOf(samples: readonly Sample[]) {
  const rate = (pick: (s: Sample) => number) =>
    samples.map((s, i) => {
      const prev = samples[i - 1];
      if (!prev || s.t <= prev.t) return 0;
      return Math.max(0, (pick(s) - pick(prev)) / (s.t - prev.t));
    });
  // The mean time of the steps between two samples; when none ran, the last step's (an idle
  // pipeline's step time is the one it last took, not zero).
  const stepMs = samples.map((s, i) => {
    const prev = samples[i - 1];
    const steps = prev ? s.steps - prev.steps : 0;
    return prev && steps > 0 ? (s.stepMsTotal - prev.stepMsTotal) / steps : s.lastStepMs;
  });
  const MiB = 1024 * 1024;
  return {
    t: samples.map((s) => s.t),
    inPerSec: rate((s) => s.input),
    outPerSec: rate((s) => s.output),
    stepsPerSec: rate((s) => s.steps),
    stepMs,
    storageBytes: samples.map((s) => s.storageBytes),
    rssMiB: samples.map((s) => s.rss / MiB),
    heapMiB: samples.map((s) => s.heap / MiB),
    tableRows: samples.map((s) => s.tableRows),
    checkpoints: samples.map((s) => s.checkpoints),
  };
}
