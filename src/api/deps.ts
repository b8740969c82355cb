import type { Registry } from 'prom-client';
import type { PipelineLogs } from '../http/log-lines.js';
import type { Logger } from '../logging/logger.js';
import type { PipelineAuth } from '../http/pipeline-token.js';
import type { PipelineBounds } from '../model/pipeline-pod.js';
import type { Database } from '../store/database.js';
import type { BuildInfo } from '../version.js';
import type { ConsoleHandler } from './console.js';
import type { ProgramValidation } from './routes/platform-extra.js';

/** Everything the API needs from the outside, passed in so tests build the same app with real parts. */
export interface ApiDeps {
  db: Database;
  log: Logger;
  build: BuildInfo;
  metrics: Registry;
  apiKey?: string;
  /** Each deployment's token header for calls to its pipeline process (store/platform-secret.ts). */
  pipelineAuth: PipelineAuth;
  /** The output lines of a pipeline's process: from a runner in this process, or one at --runner-url. */
  pipelineLogs?: PipelineLogs;
  /** The operator's bounds on runtime_config.resources, checked at /start; none when absent. */
  bounds?: PipelineBounds;
  /** PEM certificate and key: the API then serves HTTPS only. */
  tls?: { cert: Buffer; key: Buffer };
  /** The web console's files (web/ built into dist/web), served at / when present. */
  console?: ConsoleHandler;
  /** The compiler's SQL stage, when this process runs the compiler (svc manager): POST /v0/validate_program. */
  validateProgram?: (programCode: string) => Promise<ProgramValidation>;
}
