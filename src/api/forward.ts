import type { FastifyReply } from 'fastify';
import { pipelineUnreachable, SvcError } from '../model/errors.js';

/** Calls without a bound of their own (status, stats, control): the pipeline answers these at once. */
const FORWARD_TIMEOUT_MS = 10_000;

export interface Forward {
  /** Called after a 2xx answer: e.g. to wake the runner so the record follows at once. */
  after?: () => Promise<void>;
  location: string;
  name: string;
  /** The deployment's token header (docs/security.md): every call to a pipeline carries it. */
  auth: { authorization: string };
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: unknown;
  /** A body passed through as it came (ingress: JSON lines or CSV, not parsed here). */
  rawBody?: { data: Buffer; contentType: string };
  timeoutMs?: number;
  /** The status to answer in place of the pipeline's own 2xx (an accepted action is 202). */
  okStatus?: number;
}

/** Calls the pipeline process and passes its answer through (status, content type, body). */
export async function forwardToPipeline(reply: FastifyReply, f: Forward): Promise<FastifyReply> {
  const url = `${f.location}${f.path}${f.query ? `?${f.query}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: f.method,
      signal: AbortSignal.timeout(f.timeoutMs ?? FORWARD_TIMEOUT_MS),
      ...(f.body !== undefined && { body: JSON.stringify(f.body) }),
      ...(f.rawBody && { body: f.rawBody.data }),
      headers: {
        ...f.auth,
        ...(f.body !== undefined && { 'content-type': 'application/json' }),
        ...(f.rawBody && { 'content-type': f.rawBody.contentType }),
      },
    });
  } catch (error) {
    throw forwardFailed(f, error);
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (res.ok && f.after) await f.after().catch(() => undefined);
  return reply
    .status(res.ok && f.okStatus !== undefined ? f.okStatus : res.status)
    .type(res.headers.get('content-type') ?? 'application/json')
    .send(body);
}

/** Errors of a connection that was never made: the pipeline did not receive the request. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/**
 * What a failed call tells its client. Unreachable only when the request never reached the pipeline;
 * once it may have (the bound passed, the connection broke), a 504 says the outcome is unknown: a
 * POST may have been applied, and retrying it blindly could apply it twice.
 */
function forwardFailed(f: Forward, error: unknown): SvcError {
  const e = error as Error & { cause?: { code?: string } };
  const code = e.cause?.code;
  if (code !== undefined && NOT_CONNECTED.has(code)) return pipelineUnreachable(f.name, e.message, { error: code });
  const timedOut = e.name === 'TimeoutError';
  const what = timedOut
    ? `did not answer within ${(f.timeoutMs ?? FORWARD_TIMEOUT_MS) / 1000} s`
    : `broke off its answer (${e.message})`;
  const outcome =
    f.method === 'POST'
      ? ': the request was delivered and its outcome is unknown (an ingress answers its completion token within 20 s; check GET /stats or the data before retrying)'
      : '';
  return new SvcError(504, 'PipelineInteractionTimeout', `Pipeline '${f.name}' ${what}${outcome}`, {
    pipeline_name: f.name,
    ...(timedOut && { timeout_secs: (f.timeoutMs ?? FORWARD_TIMEOUT_MS) / 1000 }),
  });
}
