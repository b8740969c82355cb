import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenStreams } from '../http/open-streams.js';
import { pipelineUnreachable } from '../model/errors.js';
import { LineCut } from './line-cut.js';

/**
 * Calls the pipeline process and streams its answer through as it comes, without a time bound
 * (egress stays open; a query's result may be large). The call to the pipeline ends when the client
 * goes away. With `endOnClose` (egress, which never ends by itself), the server's close ends the
 * stream too: after the line under way, since every chunk is a line and a half one would be garbage.
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
    endOnClose?: OpenStreams;
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
  if (!f.endOnClose) return reply.send(body);
  const out = new LineCut();
  body.pipe(out);
  // A pipeline gone mid-stream still breaks the response off, as without the cut: an end would say
  // the stream was over when it was not.
  body.on('error', (error) => {
    if (!out.cutting) out.destroy(error);
  });
  const forget = f.endOnClose.add(() =>
    out.cut(() => {
      body.unpipe(out);
      gone.abort();
    }),
  );
  out.once('close', forget);
  return reply.send(out);
}
