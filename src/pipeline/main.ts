import type { PipelineProcessConfig } from '../config.js';
import type { Logger } from '../logging/logger.js';

/**
 * `svc pipeline`: the pipeline process. UNFINISHED in this commit: the process itself is being
 * built (issue 4); until then the command refuses to run instead of pretending.
 */
export async function runPipeline(config: PipelineProcessConfig, log: Logger): Promise<{ close(): Promise<void> }> {
  log.error({ config_file: config.configFile }, 'svc pipeline is not implemented yet');
  throw new Error('svc pipeline is not implemented yet');
}
