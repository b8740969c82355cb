import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../model/errors.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Routes any client may read without a key: probes, Prometheus, the API description. */
const OPEN = new Set(['/healthz', '/readyz', '/metrics', '/v0/openapi.json']);

/** Bearer API-key check on /v0; compared as digests in constant time. */
export function registerApiKeyAuth(app: FastifyInstance, apiKey: string): void {
  const expected = digest(apiKey);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?', 1)[0] ?? '';
    if (OPEN.has(path) || !path.startsWith('/v0')) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match?.[1] || !timingSafeEqual(digest(match[1].trim()), expected)) {
      throw new SvcError(401, 'Unauthorized', 'Missing or wrong API key: send "Authorization: Bearer <key>"');
    }
  });
}
