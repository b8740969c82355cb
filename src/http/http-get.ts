// process.getBuiltinModule, not `import http from 'node:http'`: an ES import of node:http reads
// every export, and its lazy WebSocket and EventSource getters load undici: ~50 ms measured, paid
// by every pipeline process, which fetches its artifact with this module at start.
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

// A plain GET for the runner's many small requests to pipelines (/status every 2.5 s each). Node's
// http client costs about a quarter of what fetch does per request (no WHATWG streams, headers
// list or AbortSignal timer): measured 80 vs 300 µs of CPU on this project's machine, which is most
// of the runner's steady-state CPU with hundreds of pipelines. The global agents keep connections
// alive (Node ≥ 19), so each pipeline's connection is reused between polls.

export interface TextResponse {
  status: number;
  text: string;
}

/** Bodies larger than this are refused: a pipeline's /status is a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * GET `url`; rejects on connection errors, on `timeoutMs` without an answer, and on a body over
 * `opts.maxBytes` (1 MiB unless given: the pipeline process fetches its artifact with a larger one). A kept-alive connection the server closed just as it was reused is retried once on a new
 * one (the race Node's docs describe for `request.reusedSocket`): without that, a pipeline could
 * look unreachable for one poll.
 */
export async function getText(
  url: string,
  timeoutMs: number,
  opts: { maxBytes?: number; headers?: Record<string, string> } = {},
): Promise<TextResponse> {
  const maxBytes = opts.maxBytes ?? MAX_BODY_BYTES;
  const headers = opts.headers ?? {};
  try {
    return await getOnce(url, timeoutMs, maxBytes, headers);
  } catch (error) {
    if (!(error instanceof ReusedSocketReset)) throw error;
    return getOnce(url, timeoutMs, maxBytes, headers);
  }
}

class ReusedSocketReset extends Error {}

function getOnce(
  url: string,
  timeoutMs: number,
  maxBytes: number,
  headers: Record<string, string>,
): Promise<TextResponse> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { timeout: timeoutMs, headers }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) request.destroy(new Error(`response body over ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(request.reusedSocket && error.code === 'ECONNRESET' ? new ReusedSocketReset(error.message) : error),
    );
  });
}
