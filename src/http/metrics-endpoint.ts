import type { FastifyInstance } from 'fastify';
import { badRequest } from '../model/errors.js';

// The fastify side of the Prometheus metrics: the hook that counts answered requests and the
// /metrics route. No prom-client here (src/http/metrics.ts makes the source), so that a process can
// serve /metrics without loading it at start.

/** One answered request, as the HTTP metrics count it. */
export interface HttpObservation {
  method: string;
  /** The route pattern, not the URL: pipeline names must not become label values. */
  route: string;
  status: string;
  seconds: number;
}

/** What /metrics answers and the request hook feeds. */
export interface MetricsSource {
  observe(o: HttpObservation): void;
  readonly contentType: string;
  metrics(): Promise<string>;
  /** `?format=json`: the same metrics as JSON (prom-client's form: name, help, type, values). */
  json(): Promise<unknown>;
}

/** `?format=`: the established clients ask for `prometheus` (the default) or `json`. */
function formatOf(query: unknown): 'prometheus' | 'json' | undefined {
  const format = typeof query === 'object' && query !== null ? (query as { format?: unknown }).format : undefined;
  return format === undefined || format === 'prometheus' ? 'prometheus' : format === 'json' ? 'json' : undefined;
}

/**
 * Requests answered before a lazy source is made are kept and counted when it is: the first
 * /metrics answers the same counts as with a source made at start. Past this many (an hour or so
 * of a runner's status calls, a few hundred KiB), the source is made anyway.
 */
const MAX_PENDING = 2_000;

/**
 * Counts every answered request and serves /metrics. A source given as a function is made on the
 * first /metrics request (or after MAX_PENDING requests), not at start: a pipeline process reads
 * prom-client's ~85 module files only if something scrapes it.
 */
export function serveMetrics(
  app: FastifyInstance,
  source: MetricsSource | (() => Promise<MetricsSource>),
  maxPending = MAX_PENDING,
): void {
  let ready = typeof source === 'function' ? undefined : source;
  let making: Promise<MetricsSource> | undefined;
  const pending: HttpObservation[] = [];
  const make = (): Promise<MetricsSource> => {
    if (ready) return Promise.resolve(ready);
    making ??= (source as () => Promise<MetricsSource>)().then(
      (made) => {
        for (const o of pending.splice(0)) made.observe(o);
        ready = made;
        return made;
      },
      (error: unknown) => {
        // Tried again at the next scrape; the requests meanwhile stay counted in `pending`.
        making = undefined;
        throw error;
      },
    );
    return making;
  };
  app.addHook('onResponse', async (request, reply) => {
    const o = {
      method: request.method,
      route: request.routeOptions.url ?? 'unknown',
      status: String(reply.statusCode),
      seconds: reply.elapsedTime / 1000,
    };
    if (ready) ready.observe(o);
    else if (pending.push(o) >= maxPending) make().catch(() => undefined);
  });
  app.get('/metrics', async (request, reply) => {
    const format = formatOf(request.query);
    if (!format) throw badRequest('InvalidMetricsFormat', 'format: expected prometheus or json', { field: 'format' });
    const metrics = await make();
    if (format === 'json') return reply.header('content-type', 'application/json').send(await metrics.json());
    void reply.header('content-type', metrics.contentType);
    return metrics.metrics();
  });
}
