import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { PipelineLogs } from '../http/log-lines.js';
import type { Database } from '../store/database.js';
import { ping } from '../store/ping.js';
import { registerLogStream } from './logs-route.js';
import { clientErrorHandler } from '../http/client-error.js';
import { closeGracefully } from '../http/open-streams.js';

// The runner's own small HTTP server (`svc runner`): probes for Kubernetes, Prometheus metrics and
// the log streams of the pipelines it runs (for `svc api-server --runner-url`).
// /readyz answers 200 when the database answers; a standby (leader election) is ready too: it is
// healthy, just waiting. `leading` tells which one acts.

export interface RunnerHttpOptions {
  db: Database;
  registry: Registry;
  leading: () => boolean;
  /** The backend's log streams; undefined for Kubernetes (pipelines log to their pods). */
  logs?: PipelineLogs;
}

export function buildRunnerApp(opts: RunnerHttpOptions): FastifyInstance {
  const app = Fastify({ logger: false, clientErrorHandler });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await ping(opts.db);
      return { status: 'ready', leading: opts.leading() };
    } catch (error) {
      return reply.code(503).send({ status: 'unavailable', reason: (error as Error).message });
    }
  });
  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', opts.registry.contentType);
    return opts.registry.metrics();
  });
  // A log follow lasts as long as its pipeline, which the runner stops only after this server has
  // closed: ended when the app closes, or `svc runner` hung at SIGTERM (src/http/open-streams.ts).
  registerLogStream(app, opts.logs, closeGracefully(app));
  return app;
}
