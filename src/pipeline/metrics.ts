import { Gauge, type Registry } from 'prom-client';
import { createRegistry, httpMetricsSource } from '../http/metrics.js';
import type { MetricsSource } from '../http/metrics-endpoint.js';
import { RuntimeStatus } from '../model/status.js';
import type { PipelineController } from './controller.js';
import { memoryPressure } from './memory-pressure.js';
import type { StatsBody } from './stats-body.js';

// The pipeline process's Prometheus metrics. Imported when /metrics is first asked for, not at
// start: prom-client and what it loads (@opentelemetry/api, bintrees, tdigest) are ~85 module files.
//
// Besides svc's own (svc_…), the names the established ecosystem's users scrape and chart, each
// labelled with the pipeline's id (`pipeline`) and name (`pipeline_name`) as that ecosystem labels
// them, read from the same /stats body the clients read, so the two never disagree.

/**
 * The process's registry: Node's default metrics, the HTTP request metrics and the pipeline's own.
 * Served as `text/plain` exactly: the ecosystem's SDK reads a /metrics answer as text only under that
 * content type (Prometheus reads the 0.0.4 text format without the version parameter too).
 */
export function pipelineMetrics(ctl: PipelineController, stats: () => Promise<StatsBody>): MetricsSource {
  const registry = createRegistry();
  const source = httpMetricsSource(registry);
  registerPipelineMetrics(registry, ctl);
  registerEstablishedMetrics(registry, ctl, stats);
  return { ...source, contentType: 'text/plain' };
}

function registerPipelineMetrics(registry: Registry, ctl: PipelineController): void {
  new Gauge({
    name: 'svc_pipeline_uptime_seconds',
    help: 'Seconds since the pipeline process started',
    registers: [registry],
    collect() {
      this.set((Date.now() - ctl.startedAt) / 1000);
    },
  });
  new Gauge({
    name: 'svc_pipeline_runtime_status',
    help: 'The runtime status: 1 for the current one, 0 for the others',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      for (const s of RuntimeStatus.options) this.set({ status: s }, s === ctl.status ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_pipeline_table_rows',
    help: 'Rows in each input table',
    labelNames: ['table'] as const,
    registers: [registry],
    async collect() {
      for (const [table, n] of Object.entries(await ctl.rowCounts().catch(() => ({})))) this.set({ table }, n);
    },
  });
  new Gauge({
    name: 'svc_pipeline_checkpoints',
    help: 'Checkpoints in storage',
    registers: [registry],
    collect() {
      this.set(ctl.store.summaries().length);
    },
  });
  // Storage and step time: the same readings as /stats's storage_bytes, total_step_msecs and
  // last_step_msecs. Gauges read at scrape time rather than a histogram observed per step: the
  // registry is made at the first scrape, and a histogram would miss every step before it.
  new Gauge({
    name: 'svc_pipeline_storage_bytes',
    help: "Bytes of the pipeline's storage in use (its kept checkpoints)",
    registers: [registry],
    collect() {
      this.set(ctl.store.bytes());
    },
  });
  new Gauge({
    name: 'svc_pipeline_step_seconds_total',
    help: 'Seconds spent in steps; its rate over steps_completed_total is the mean step time',
    registers: [registry],
    collect() {
      this.set(ctl.stepTiming.totalMs / 1000);
    },
  });
  new Gauge({
    name: 'svc_pipeline_last_step_seconds',
    help: 'Seconds the last step took',
    registers: [registry],
    collect() {
      this.set(ctl.stepTiming.lastMs / 1000);
    },
  });
}

type Global = StatsBody['global_metrics'];
type Endpoint = StatsBody['inputs'][number] | StatsBody['outputs'][number];

/** Global counters: established name → the global_metrics member it reports. */
const GLOBAL: Array<[string, string, (g: Global) => number]> = [
  [
    'records_input_total',
    'Records received from every input (HTTP ingress and connectors)',
    (g) => g.total_input_records,
  ],
  ['input_bytes_total', 'Bytes received from every input', (g) => g.total_input_bytes],
  ['records_processed_total', 'Input records processed by the engine', (g) => g.total_processed_records],
  ['records_completed_total', 'Input records processed to completion', (g) => g.total_completed_records],
  ['steps_completed_total', 'Steps the engine has completed', (g) => g.total_completed_steps],
  ['buffered_input_records', 'Records buffered for the next step', (g) => g.buffered_input_records],
];

/** Per-endpoint counters: established name → the endpoint metric it reports (inputs, then outputs). */
const INPUT: Array<[string, string, string]> = [
  ['input_connector_records_total', 'Records received by an input endpoint', 'total_records'],
  ['input_connector_bytes_total', 'Bytes received by an input endpoint', 'total_bytes'],
  ['input_connector_errors_parse_total', 'Records an input endpoint could not parse', 'num_parse_errors'],
  ['input_connector_errors_transport_total', 'Transport errors of an input endpoint', 'num_transport_errors'],
];
const OUTPUT: Array<[string, string, string]> = [
  ['output_connector_records_total', 'Records sent by an output endpoint', 'transmitted_records'],
  ['output_connector_bytes_total', 'Bytes sent by an output endpoint', 'transmitted_bytes'],
  ['output_connector_errors_encode_total', 'Records an output endpoint could not encode', 'num_encode_errors'],
  ['output_connector_errors_transport_total', 'Transport errors of an output endpoint', 'num_transport_errors'],
];

const metricOf = (e: Endpoint, key: string): number => {
  const v = (e.metrics as unknown as Record<string, unknown>)[key];
  return typeof v === 'number' ? v : 0;
};

function registerEstablishedMetrics(
  registry: Registry,
  ctl: PipelineController,
  stats: () => Promise<StatsBody>,
): void {
  const pipeline = { pipeline: ctl.config.pipeline_id, pipeline_name: ctl.config.pipeline_name };
  // One /stats read per scrape, shared by every metric of that scrape.
  let scrape: Promise<StatsBody> | undefined;
  const current = (): Promise<StatsBody> => {
    scrape ??= stats().finally(() => setImmediate(() => (scrape = undefined)));
    return scrape;
  };
  for (const [name, help, read] of GLOBAL)
    new Gauge({
      name,
      help,
      labelNames: ['pipeline', 'pipeline_name'] as const,
      registers: [registry],
      async collect() {
        this.set(pipeline, read((await current()).global_metrics));
      },
    });
  new Gauge({
    name: 'memory_pressure',
    help: 'Memory pressure: 0 low, 1 moderate, 2 high, 3 critical (RSS against max_rss_mb or resources.memory_mb_max)',
    labelNames: ['pipeline', 'pipeline_name'] as const,
    registers: [registry],
    collect() {
      this.set(pipeline, memoryPressure(process.memoryUsage.rss(), ctl.settings.memoryBudgetMb));
    },
  });
  for (const [list, defs] of [
    ['inputs', INPUT],
    ['outputs', OUTPUT],
  ] as const)
    for (const [name, help, key] of defs)
      new Gauge({
        name,
        help,
        labelNames: ['pipeline', 'pipeline_name', 'endpoint'] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const e of (await current())[list])
            this.set({ ...pipeline, endpoint: e.endpoint_name }, metricOf(e, key));
        },
      });
}
