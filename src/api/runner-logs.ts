import type { ReadableStream } from 'node:stream/web';
import { pipelineUnreachable, SvcError } from '../model/errors.js';
import { ErrorBodySchema } from '../model/program.js';
import { type PipelineLogs, splitLines } from '../http/log-lines.js';

// `svc api-server --runner-url`: a pipeline's log lives with the local runner that started its
// process, in another process. Its HTTP server streams it (src/runner/logs-route.ts); this relays
// that stream line by line as it arrives, never the whole body at once.

/** How long the runner may take to start answering; the stream itself may then last for hours. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * The log follower of `svc api-server`: GET {base}/v0/pipelines/{id}/logs on the runner. `base` is
 * the configured --runner-url, its trailing slash already dropped by the config.
 */
export function runnerLogs(base: string): PipelineLogs {
  return async (pipeline, signal, options) => {
    const name = pipeline.name ?? pipeline.id;
    const details = { runner_url: base };
    const follow = options?.follow === false ? '?follow=false' : '';
    const res = await answerOf(`${base}/v0/pipelines/${encodeURIComponent(pipeline.id)}/logs${follow}`, signal).catch(
      (error: unknown) => {
        throw pipelineUnreachable(
          name,
          `the runner at ${base} streaming its log is unreachable (${cause(error)})`,
          details,
        );
      },
    );
    // 404: the runner never ran it (the API then says "not deployed", as svc manager does).
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (res.status !== 200 || !res.body) throw await runnerError(res, name, details);
    return untilAborted(splitLines(res.body as ReadableStream<Uint8Array>), signal);
  };
}

/** The client leaving aborts the body: that ends the stream, it is no failure. */
async function* untilAborted(lines: AsyncIterable<string>, signal: AbortSignal): AsyncGenerator<string> {
  try {
    yield* lines;
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/** The response head; `signal` (the client left) aborts the request and, later, the body. */
async function answerOf(url: string, signal: AbortSignal): Promise<Response> {
  const late = new AbortController();
  const timer = setTimeout(() => late.abort(new Error(`no answer in ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
  try {
    return await fetch(url, { signal: AbortSignal.any([signal, late.signal]) });
  } finally {
    clearTimeout(timer);
  }
}

/** The runner's own error body passed on (e.g. a backend without logs), else a 503 naming the runner. */
async function runnerError(res: Response, name: string, details: { runner_url: string }): Promise<SvcError> {
  const body = ErrorBodySchema.safeParse(await res.json().catch(() => undefined));
  if (!body.success)
    return pipelineUnreachable(name, `the runner at ${details.runner_url} answered HTTP ${res.status}`, details);
  const passed = body.data.details;
  const extra = typeof passed === 'object' && passed !== null && !Array.isArray(passed) ? passed : {};
  return new SvcError(res.status, body.data.error_code, body.data.message, { ...extra, ...details });
}

/** fetch's "fetch failed" says nothing; its cause (ECONNREFUSED, ENOTFOUND…) does. */
function cause(error: unknown): string {
  const c = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof c?.code === 'string') return c.code;
  if (typeof c?.message === 'string') return c.message;
  return (error as Error).message;
}
