import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../model/errors.js';
import { componentHealth, HEARTBEAT_FRESH_SECS } from '../../store/heartbeat.js';
import { ping } from '../../store/ping.js';
import { databaseUnavailable } from '../../model/database-errors.js';
import type { ApiDeps } from '../deps.js';

/** One part of the health body, as the established API answers it. */
interface Part {
  healthy: boolean;
  message: string;
  /** When this answer was made. */
  checked_at: string;
  /** Since when `healthy` has had this value, as far as svc can tell. */
  unchanged_since: string;
}

const iso = (t: Date | string): string => new Date(t).toISOString();

export function registerPlatformRoutes(app: FastifyInstance, { db, build }: ApiDeps): void {
  // The API server's own part is healthy from its start for as long as the database answers.
  const apiSince = new Date().toISOString();
  // The established manager's liveness body (its platform tests compare it whole).
  app.get('/healthz', async () => ({ status: 'healthy' }));

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

  // {all_healthy, api, compiler, runner}: each part {healthy, message, checked_at, unchanged_since}.
  // The compiler and the runner are healthy while one of their instances beats (store/heartbeat.ts).
  app.get('/v0/cluster_healthz', async (_request, reply) => {
    const checkedAt = new Date().toISOString();
    let api: Part = {
      healthy: true,
      message: 'the API server answers and reaches the database',
      checked_at: checkedAt,
      unchanged_since: apiSince,
    };
    let beats: Awaited<ReturnType<typeof componentHealth>> = [];
    try {
      beats = await componentHealth(db, HEARTBEAT_FRESH_SECS);
    } catch (error) {
      const message = `the database cannot be reached: ${(error as Error).message}`;
      api = { healthy: false, message, checked_at: checkedAt, unchanged_since: checkedAt };
    }
    const part = (component: string): Part => {
      const h = beats.find((b) => b.component === component);
      const since = h?.unchanged_since ? iso(h.unchanged_since) : apiSince;
      if (h && h.alive > 0)
        return {
          healthy: true,
          message: `${h.alive} instance(s) reporting`,
          checked_at: checkedAt,
          unchanged_since: since,
        };
      const last = h?.seconds_since_last;
      return {
        healthy: false,
        message:
          last == null
            ? `no ${component} has ever reported`
            : `no ${component} has reported in the last ${HEARTBEAT_FRESH_SECS} s (last ${Math.round(last)} s ago)`,
        checked_at: checkedAt,
        unchanged_since: since,
      };
    };
    const body = { all_healthy: false, api, compiler: part('compiler'), runner: part('runner') };
    body.all_healthy = body.api.healthy && body.compiler.healthy && body.runner.healthy;
    return reply.status(body.all_healthy ? 200 : 503).send(body);
  });
}

export const notFound = (method: string, url: string): SvcError =>
  new SvcError(404, 'NotFound', `No such endpoint: ${method} ${url.split('?', 1)[0] ?? url}`);
