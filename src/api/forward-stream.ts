import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipelineUnreachable } from '../model/errors.js';

/**
 * Calls the pipeline process and streams its answer through as it comes, without a time bound
 * (egress stays open; a query's result may be large). The call to the pipeline ends when the client
 * goes away.
 */
export async function streamFromPipeline(
  request: FastifyRequest,
  reply: FastifyReply,
  f: {
    location: string;
    name: string;
    auth: { authorization: string };
    method: 'GET' | 'POST';
    path: string;
    query: string;
  },
): Promise<FastifyReply> {
  const gone = new AbortController();
  request.raw.once('close', () => gone.abort());
  let res: Response;
  try {
    res = await fetch(`${f.location}${f.path}${f.query ? `?${f.query}` : ''}`, {
      method: f.method,
      headers: f.auth,
      signal: gone.signal,
    });
  } catch (error) {
    throw pipelineUnreachable(f.name, (error as Error).message);
  }
  reply.status(res.status).type(res.headers.get('content-type') ?? 'application/json');
  if (!res.body) return reply.send('');
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  // The client left or the pipeline went away mid-stream: end quietly, nothing to answer anymore.
  body.on('error', () => body.destroy());
  return reply.send(body);
}
