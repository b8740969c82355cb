import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildArtifact } from '../../src/compiler/build/artifact.js';
import type { DeploymentConfig } from '../../src/model/deployment.js';
import type { JsonValue } from '../../src/model/json.js';
import type { ProgramInfo } from '../../src/model/program.js';

/** A program's artifact on disk, as the runner hands it to a pipeline (the engine reads only the SQL). */
export async function writeProgramArtifact(
  dir: string,
  program_code: string,
  /** The compiler's program_info when the test needs it (connectors); else an empty one. */
  program_info: ProgramInfo = {
    input_connectors: {},
    output_connectors: {},
    schema: { inputs: [], outputs: [] },
    udf_stubs: '',
  },
): Promise<{ binary_ref: string; program_info_ref: string }> {
  const artifact = await buildArtifact(dir, {
    program_code,
    udf_toml: '',
    program_info,
    program_config: { cache: false, use_platform_compiler: false },
  });
  const program_info_ref = join(dir, `${randomUUID()}.program_info.json`);
  await writeFile(program_info_ref, JSON.stringify(program_info));
  return { binary_ref: artifact.path, program_info_ref };
}

/** The deployment config a runner would write for the artifact (bootstrap allowed, storage in `dir`). */
export function deploymentOf(
  artifact: { binary_ref: string; program_info_ref: string },
  runtime_config: Record<string, JsonValue>,
  storage_path: string,
): DeploymentConfig {
  return {
    pipeline_id: randomUUID(),
    pipeline_name: 'p',
    deployment_id: randomUUID(),
    platform_version: '0.1.0',
    runtime_config,
    bootstrap_policy: 'allow',
    ...artifact,
    storage_path,
  };
}
