import { Counter, Histogram, type Registry } from 'prom-client';

// The runner's own metrics (issue 6, item 8), registered on the process's registry (never the
// global one). Backends record into them; the runner's HTTP server exposes /metrics.

export interface RunnerMetrics {
  reconcileSeconds: Histogram<'outcome'>;
  rowReads: Counter<'source'>;
  provisioningSeconds: Histogram;
  informerRestarts: Counter<'resource'>;
  apiRequests: Counter<'verb' | 'resource'>;
  writeStatements: Histogram;
}

export function createRunnerMetrics(registry: Registry): RunnerMetrics {
  return {
    reconcileSeconds: new Histogram({
      name: 'svc_runner_reconcile_duration_seconds',
      help: 'Time of one reconcile step of one pipeline (observe, decide, write)',
      labelNames: ['outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    rowReads: new Counter({
      name: 'svc_runner_row_reads_total',
      help: 'Pipeline rows a reconcile started from: read from the database, or kept from the previous look',
      labelNames: ['source'] as const,
      registers: [registry],
    }),
    provisioningSeconds: new Histogram({
      name: 'svc_runner_provisioning_duration_seconds',
      help: 'Time from the start of Provisioning to Provisioned',
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
    informerRestarts: new Counter({
      name: 'svc_runner_informer_restarts_total',
      help: 'Informers restarted after their watch or list failed, by resource',
      labelNames: ['resource'] as const,
      registers: [registry],
    }),
    apiRequests: new Counter({
      name: 'svc_runner_kubernetes_requests_total',
      help: 'Requests to the Kubernetes API server, by verb and resource',
      labelNames: ['verb', 'resource'] as const,
      registers: [registry],
    }),
    writeStatements: new Histogram({
      name: 'svc_runner_write_batch_size',
      help: 'Pipelines written per statement (writes that wait while 8 statements are in flight go together)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
  };
}
