import { Gauge, type Registry } from 'prom-client';
import { createRegistry, httpMetricsSource } from '../http/metrics.js';
import type { MetricsSource } from '../http/metrics-endpoint.js';
import { RuntimeStatus } from '../model/status.js';
import type { PipelineController } from './controller.js';

// The pipeline process's Prometheus metrics. Imported when /metrics is first asked for, not at
// start: prom-client and what it loads (@opentelemetry/api, bintrees, tdigest) are ~85 module files.

/** The process's registry: Node's default metrics, the HTTP request metrics and the pipeline's own. */
export function pipelineMetrics(ctl: PipelineController): MetricsSource {
  const registry = createRegistry();
  const source = httpMetricsSource(registry);
  registerPipelineMetrics(registry, ctl);
  return source;
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
}
