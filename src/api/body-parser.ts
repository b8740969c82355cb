import type { FastifyInstance } from 'fastify';
import { badRequest } from '../model/errors.js';

export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * Bodies are JSON whatever the declared content type (curl's `-d` says form-urlencoded). An empty
 * body is no body: the established clients send `Content-Type: application/json` on body-less
 * requests, and a server that rejects that breaks them.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (error) {
      done(
        badRequest('MalformedRequest', `The request body is not valid JSON: ${(error as Error).message}`),
        undefined,
      );
    }
  });
}
