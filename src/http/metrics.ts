import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { type MetricsSource, serveMetrics } from './metrics-endpoint.js';

/** The manager's own Prometheus metrics: one registry per process, passed in, never global. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  return registry;
}

/** The registry with the HTTP request metrics in it, as /metrics serves it. */
export function httpMetricsSource(registry: Registry): MetricsSource {
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, route and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    observe({ method, route, status, seconds }) {
      requests.inc({ method, route, status });
      duration.observe({ method, route }, seconds);
    },
    contentType: registry.contentType,
    metrics: () => registry.metrics(),
    json: () => registry.getMetricsAsJSON(),
  };
}

export function registerHttpMetrics(app: FastifyInstance, registry: Registry): void {
  serveMetrics(app, httpMetricsSource(registry));
}
