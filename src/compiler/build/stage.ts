import { ProgramInfo } from '../../model/program.js';
import type { CompileJob } from '../../store/compiler/claim.js';
import type { StageResult } from '../../store/compiler/store-result.js';
import { buildArtifact } from './artifact.js';

const rustError = (stderr: string): StageResult => ({
  status: 'RustError',
  program_error: { rust_compilation: { exit_code: 1, stdout: '', stderr } },
});

export interface BuildOptions {
  dataDir: string;
  platformVersion: string;
  /** `--unstable-features`: `runtime_version` allows a runtime_version other than the platform's. */
  unstableFeatures: readonly string[];
}

/**
 * Stage 2: CompilingRust → Success, RustError or SystemError (seed 2.3 rules). The program_error
 * returned is merged into stage 1's, which keeps its `sql_compilation` warnings.
 */
export async function runBuild(job: CompileJob, opts: BuildOptions): Promise<StageResult> {
  const requested = job.program_config.runtime_version;
  if (
    requested !== undefined &&
    requested !== opts.platformVersion &&
    !opts.unstableFeatures.includes('runtime_version')
  )
    return {
      status: 'SystemError',
      program_error: {
        system_error: `runtime_version '${requested}' differs from the platform version '${opts.platformVersion}', which requires the unstable feature 'runtime_version', and it is not enabled`,
      },
    };
  if (job.udf_rust.trim() !== '')
    return rustError(
      'error: Rust UDFs (udf_rust) are not supported by this runtime; define functions in SQL (CREATE FUNCTION … LANGUAGE sql) instead\n',
    );
  const info = ProgramInfo.safeParse(job.program_info);
  if (!info.success)
    return { status: 'SystemError', program_error: { system_error: 'SqlCompiled pipeline has no valid program_info' } };
  if (info.data.udf_stubs !== '')
    return rustError(
      `error: the program declares functions without a body, which would need Rust UDFs; Rust UDFs are not supported by this runtime (define them in SQL instead):\n${info.data.udf_stubs}`,
    );
  const artifact = await buildArtifact(opts.dataDir, {
    program_code: job.program_code,
    udf_toml: job.udf_toml,
    program_info: info.data,
    program_config: job.program_config,
  });
  const how = artifact.reused ? 'reused cached artifact' : 'built artifact';
  return {
    status: 'Success',
    artifact: { source_checksum: artifact.source_checksum, integrity_checksum: artifact.integrity_checksum },
    program_error: {
      rust_compilation: {
        exit_code: 0,
        stdout: `${how} ${artifact.source_checksum} (integrity ${artifact.integrity_checksum})\n`,
        stderr: '',
      },
    },
  };
}
