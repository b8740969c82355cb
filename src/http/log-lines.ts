// A pipeline's log travels over HTTP as chunked text/plain, one log line per text line. These
// turn lines into that text and back (the api-server re-reads what a separate runner streams).

/** Each line with its newline, as the response body's chunks. */
export async function* withNewlines(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield `${line}\n`;
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
