import type { ProgramError, ProgramInfo } from '../../model/program.js';
import type { Queryable } from '../database.js';

// The compiler's result writes. Each is guarded by the program_version it compiled and by its own
// claim: if the program was edited (version bumped, status back to Pending) or the claim was
// reset meanwhile, no row matches and the stale result is dropped. Final statuses stamp
// program_status_since and bump refresh_version (API.md, Counters).

export type StageStatus = 'SqlCompiled' | 'SqlError' | 'Success' | 'RustError' | 'SystemError';

export interface StageResult {
  status: StageStatus;
  program_error: ProgramError;
  /**
   * Stage 1 sets it (null on errors) and replaces program_error; stage 2 leaves it undefined, keeps
   * stage 1's info and merges its program_error into stage 1's (the SQL warnings stay).
   */
  program_info?: ProgramInfo | null;
  /** Success of stage 2: the build the runner deploys (columns from migration 003). */
  artifact?: { source_checksum: string; integrity_checksum: string };
}

export interface Claim {
  id: string;
  program_version: number;
  instance: string;
}

/** True when stored; false when the result was stale and dropped. */
export async function storeResult(q: Queryable, claim: Claim, result: StageResult): Promise<boolean> {
  const setInfo = result.program_info !== undefined;
  const rows = await q.query(
    `UPDATE pipeline
        SET program_status = $4, program_status_since = clock_timestamp(),
            program_error = ${setInfo ? '$5::jsonb' : 'program_error || $5::jsonb'},
            ${setInfo ? 'program_info = $6::jsonb,' : ''}
            ${result.artifact ? `program_binary_source_checksum = $${setInfo ? 7 : 6}, program_binary_integrity_checksum = $${setInfo ? 8 : 7},` : ''}
            refresh_version = refresh_version + 1, compiler_instance = NULL
      WHERE id = $1 AND program_version = $2 AND compiler_instance = $3
        AND program_status IN ('CompilingSql', 'CompilingRust')
      RETURNING id`,
    [
      claim.id,
      claim.program_version,
      claim.instance,
      result.status,
      JSON.stringify(result.program_error),
      ...(setInfo ? [result.program_info === null ? null : JSON.stringify(result.program_info)] : []),
      ...(result.artifact ? [result.artifact.source_checksum, result.artifact.integrity_checksum] : []),
    ],
  );
  return rows.length === 1;
}
