import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../model/errors.js';
import { componentHealth } from '../../store/heartbeat.js';
import { ping } from '../../store/ping.js';
import { databaseUnavailable } from '../../model/database-errors.js';
import type { ApiDeps } from '../deps.js';

/** A component counts as healthy when one of its instances beat within this many seconds. */
export const HEARTBEAT_FRESH_SECS = 30;

interface Part {
  healthy: boolean;
  message: string;
}

export function registerPlatformRoutes(app: FastifyInstance, { db, build }: ApiDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    try {
      await ping(db);
    } catch {
      throw databaseUnavailable();
    }
    return { status: 'ready' };
  });

  app.get('/v0/config', async () => ({
    version: build.version,
    edition: 'Open source',
    revision: build.revision,
    changelog_url: '',
    telemetry: '',
    license_validity: null,
    update_info: null,
  }));

  app.get('/v0/cluster_healthz', async (_request, reply) => {
    let api: Part = { healthy: true, message: 'the API server answers and reaches the database' };
    let beats: Awaited<ReturnType<typeof componentHealth>> = [];
    try {
      beats = await componentHealth(db, HEARTBEAT_FRESH_SECS);
    } catch (error) {
      api = { healthy: false, message: `the database cannot be reached: ${(error as Error).message}` };
    }
    const part = (component: string): Part => {
      const h = beats.find((b) => b.component === component);
      if (h && h.alive > 0) return { healthy: true, message: `${h.alive} instance(s) reporting` };
      const last = h?.seconds_since_last;
      return {
        healthy: false,
        message:
          last == null
            ? `no ${component} has ever reported`
            : `no ${component} has reported in the last ${HEARTBEAT_FRESH_SECS} s (last ${Math.round(last)} s ago)`,
      };
    };
    const body = { all_healthy: false, api_server: api, compiler: part('compiler'), runner: part('runner') };
    body.all_healthy = body.api_server.healthy && body.compiler.healthy && body.runner.healthy;
    return reply.status(body.all_healthy ? 200 : 503).send(body);
  });
}

export const notFound = (method: string, url: string): SvcError =>
  new SvcError(404, 'NotFound', `No such endpoint: ${method} ${url.split('?', 1)[0] ?? url}`);
