import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { SvcError } from '../model/errors.js';

// A request that Node's HTTP parser refuses (a raw non-ASCII byte in the request line, a header
// larger than the limit, a malformed chunk) never reaches fastify's routes or error handler:
// fastify answers it from its `clientErrorHandler`, by default with a body of its own shape
// ({"error","message":"Client Error","statusCode"}). Every server of svc passes this one instead,
// so that such an answer is the documented error body too.

/** What the parser's error code means to the client (Node's llhttp codes). */
function answerOf(code: string | undefined): SvcError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new SvcError(431, 'RequestHeaderFieldsTooLarge', 'The request headers are larger than the server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new SvcError(408, 'RequestTimeout', 'The request did not arrive in time');
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
      return new SvcError(
        400,
        'MalformedRequest',
        'The request line is not valid HTTP: a URL must be ASCII, with any other byte percent-encoded (for example with curl --data-urlencode or encodeURIComponent)',
        { field: 'url', parser_error: code },
      );
    default:
      return new SvcError(400, 'MalformedRequest', 'The request is not valid HTTP', {
        field: 'request',
        parser_error: code ?? null,
      });
  }
}

/** The raw HTTP answer for a refused request: the error body, and the connection closed. */
export function clientErrorResponse(error: Error & { code?: string }): string {
  const answer = answerOf(error.code);
  const body = JSON.stringify(answer.toBody());
  return [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** fastify's `clientErrorHandler` option: the documented body instead of fastify's own. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A client that went away (or a socket already answered) has nobody to read an answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.end(clientErrorResponse(error));
  else socket.destroy(error);
}
