// The API's own types, derived from the zod schemas the server validates with (type-only imports:
// nothing of src/ is bundled into the console).
import type { PipelineRecord } from '../../../src/model/pipeline.ts';

export type { PipelineRecord };
export type { ProgramError, ProgramInfo, Relation, SqlCompilerMessage } from '../../../src/model/program.ts';
export type { DeploymentStatus, ProgramStatus, StorageStatus } from '../../../src/model/status.ts';

/** What `?selector=status` leaves out of a record (docs/api.md). */
export type PipelineStatus = Omit<
  PipelineRecord,
  'runtime_config' | 'program_code' | 'udf_rust' | 'udf_toml' | 'program_error' | 'program_info'
>;

/** Every error body of the API: `{message, error_code, details}`. */
export interface ErrorBody {
  message: string;
  error_code: string;
  details: Record<string, unknown> | null;
}
