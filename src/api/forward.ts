import type { FastifyReply } from 'fastify';
import { pipelineUnreachable } from '../model/errors.js';

const FORWARD_TIMEOUT_MS = 30_000;

export interface Forward {
  /** Called after a 2xx answer: e.g. to wake the runner so the record follows at once. */
  after?: () => Promise<void>;
  location: string;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: unknown;
}

/** Calls the pipeline process and passes its answer through (status, content type, body). */
export async function forwardToPipeline(reply: FastifyReply, f: Forward): Promise<FastifyReply> {
  const url = `${f.location}${f.path}${f.query ? `?${f.query}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: f.method,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      ...(f.body !== undefined && { body: JSON.stringify(f.body), headers: { 'content-type': 'application/json' } }),
    });
  } catch (error) {
    throw pipelineUnreachable(f.name, (error as Error).message);
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (res.ok && f.after) await f.after().catch(() => undefined);
  return reply
    .status(res.status)
    .type(res.headers.get('content-type') ?? 'application/json')
    .send(body);
}
