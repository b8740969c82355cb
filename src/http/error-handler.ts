import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logging/logger.js';
import { SvcError } from '../model/errors.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../model/database-errors.js';

// Every failure leaves as the error body of seed section 7. Unknown failures become a 500 whose
// body says nothing about the internals; the log keeps the stack.

export function toSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  const fe = error as Partial<FastifyError>;
  if (fe.statusCode === 413) {
    return new SvcError(413, 'PayloadTooLarge', 'The request body is larger than the limit of 10 MiB', {
      limit_bytes: 10 * 1024 * 1024,
    });
  }
  if (typeof fe.code === 'string' && fe.code.startsWith('FST_') && fe.statusCode && fe.statusCode < 500) {
    return new SvcError(400, 'MalformedRequest', fe.message ?? 'Malformed request');
  }
  return new SvcError(500, 'InternalError', 'Internal server error');
}

export function errorHandler(log: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const svcError = toSvcError(error);
    if (svcError.status >= 500) {
      log.error({ error, method: request.method, url: request.url }, 'request failed: %s', svcError.errorCode);
    }
    void reply.status(svcError.status).send(svcError.toBody());
  };
}
