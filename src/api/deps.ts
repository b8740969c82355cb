import type { Registry } from 'prom-client';
import type { Logger } from '../logging/logger.js';
import type { Database } from '../store/database.js';
import type { BuildInfo } from '../version.js';

/** Everything the API needs from the outside, passed in so tests build the same app with real parts. */
export interface ApiDeps {
  db: Database;
  log: Logger;
  build: BuildInfo;
  metrics: Registry;
  apiKey?: string;
  /** The output lines of a pipeline's process: from a runner in this process, or one at --runner-url. */
  pipelineLogs?: PipelineLogs;
}

/**
 * A pipeline's log as a follow stream: the backlog, then new lines until its deployment ends or
 * `signal` aborts (the client went away). Undefined when this source knows nothing of the pipeline.
 * The name, when known, is only for error messages (the runner's endpoint knows only the id).
 */
export type PipelineLogs = (
  pipeline: { id: string; name?: string },
  signal: AbortSignal,
) => Promise<AsyncIterable<string> | Iterable<string> | undefined>;
