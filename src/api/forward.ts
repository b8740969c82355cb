import type { FastifyReply } from 'fastify';
import { pipelineUnreachable } from '../model/errors.js';

/** Calls without a bound of their own (status, stats, control): the pipeline answers these at once. */
const FORWARD_TIMEOUT_MS = 10_000;

export interface Forward {
  /** Called after a 2xx answer: e.g. to wake the runner so the record follows at once. */
  after?: () => Promise<void>;
  location: string;
  name: string;
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
      ...(f.body !== undefined && { body: JSON.stringify(f.body), headers: { 'content-type': 'application/json' } }),
      ...(f.rawBody && { body: f.rawBody.data, headers: { 'content-type': f.rawBody.contentType } }),
    });
  } catch (error) {
    throw pipelineUnreachable(f.name, (error as Error).message);
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (res.ok && f.after) await f.after().catch(() => undefined);
  return reply
    .status(res.ok && f.okStatus !== undefined ? f.okStatus : res.status)
    .type(res.headers.get('content-type') ?? 'application/json')
    .send(body);
}
