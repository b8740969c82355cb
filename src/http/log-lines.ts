// A pipeline's log travels over HTTP as chunked text/plain, one log line per text line. These
// turn lines into that text and back (the api-server re-reads what a separate runner streams).
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { OpenStreams } from './open-streams.js';

/** Each line with its newline, as the response body's chunks. */
export async function* withNewlines(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield `${line}\n`;
}

/**
 * Answers with a log follow (the API's /logs and the runner's): `lines`, read until `gone` aborts,
 * each with its newline. The client leaving aborts it, and so does the server's close (`streams`),
 * after which the response ends after the last whole line: the client sees the end, at shutdown too
 * (the lines would otherwise last as long as the pipeline, and the close would wait for them).
 */
export function sendLogLines(
  reply: FastifyReply,
  lines: AsyncIterable<string> | Iterable<string>,
  gone: AbortController,
  streams: OpenStreams,
): FastifyReply {
  const forget = streams.add(() => gone.abort());
  reply.raw.on('close', () => {
    forget();
    gone.abort();
  });
  return reply.type('text/plain; charset=utf-8').send(Readable.from(withNewlines(lines)));
}

/**
 * The lines of a byte stream, each as soon as its newline arrives (a chunk may end mid-line or
 * mid-character); a last line without a newline is given at the end.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let partial = '';
  for await (const chunk of chunks) {
    const parts = (partial + decoder.decode(chunk, { stream: true })).split('\n');
    partial = parts.pop() ?? '';
    yield* parts;
  }
  partial += decoder.decode();
  if (partial) yield partial;
}

/**
 * A pipeline's log as a follow stream: the backlog, then new lines until its deployment ends or
 * `signal` aborts (the client went away); with `follow: false`, the backlog alone (a call that
 * returns). Undefined when this source knows nothing of the pipeline. The name, when known, is only
 * for error messages (the runner's endpoint knows only the id).
 */
export type PipelineLogs = (
  pipeline: { id: string; name?: string },
  signal: AbortSignal,
  options?: { follow?: boolean },
) => Promise<AsyncIterable<string> | Iterable<string> | undefined>;
