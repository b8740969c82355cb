import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { DeploymentConfig } from '../../src/model/deployment.js';
import type { JsonValue } from '../../src/model/json.js';
import { PipelineController } from '../../src/pipeline/controller.js';
import { processSettings } from '../../src/pipeline/settings.js';
import { writeProgramArtifact } from './engine-artifact.js';
import { silentLogger } from './silent-logger.js';

/**
 * A pipeline controller in this process for `program_code`, as the runner would deploy it: the
 * artifact written under `dir`, storage in a fresh directory there. Not yet loaded.
 */
export async function programController(
  dir: string,
  program_code: string,
  runtime_config: Record<string, JsonValue> = {},
): Promise<PipelineController> {
  const artifact = await writeProgramArtifact(dir, program_code);
  const config: DeploymentConfig = {
    pipeline_id: randomUUID(),
    pipeline_name: 'p',
    deployment_id: randomUUID(),
    platform_version: '0.1.0',
    runtime_config,
    bootstrap_policy: 'allow',
    ...artifact,
    storage_path: join(dir, randomUUID()),
  };
  return new PipelineController(config, processSettings(runtime_config), 'Running', silentLogger());
}
