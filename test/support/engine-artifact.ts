import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildArtifact } from '../../src/compiler/build/artifact.js';

/** A program's artifact on disk, as the runner hands it to a pipeline (the engine reads only the SQL). */
export async function writeProgramArtifact(
  dir: string,
  program_code: string,
): Promise<{ binary_ref: string; program_info_ref: string }> {
  const program_info = {
    input_connectors: {},
    output_connectors: {},
    schema: { inputs: [], outputs: [] },
    udf_stubs: '',
  };
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
