import type { FastifyInstance } from 'fastify';
import { bearerCheck } from '../http/bearer.js';
import { SvcError } from '../model/errors.js';

/** Routes any client may read without a key: probes, Prometheus, the API description. */
const OPEN = new Set(['/healthz', '/readyz', '/metrics', '/v0/openapi.json']);

/** Bearer API-key check on /v0; compared as digests in constant time. */
export function registerApiKeyAuth(app: FastifyInstance, apiKey: string): void {
  const matches = bearerCheck(apiKey);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?', 1)[0] ?? '';
    if (OPEN.has(path) || !path.startsWith('/v0')) return;
    if (!matches(request.headers.authorization)) {
      throw new SvcError(401, 'Unauthorized', 'Missing or wrong API key: send "Authorization: Bearer <key>"');
    }
  });
}
