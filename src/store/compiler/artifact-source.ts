import type { ProgramConfig } from '../../model/program-config.js';
import type { Queryable } from '../database.js';

// What rebuilding a pipeline's artifact needs (issue 29: a compiler-server pod that lost its data
// dir, or a second replica that never built it, serves a program compiled before): the record's
// program and the checksums the compiler stored with it.

export interface ArtifactRecord {
  program_code: string;
  udf_toml: string;
  program_config: ProgramConfig;
  /** The jsonb as stored; the caller parses it. */
  program_info: unknown;
  program_binary_source_checksum: string | null;
  program_binary_integrity_checksum: string | null;
}

export async function selectArtifactRecord(q: Queryable, pipelineId: string): Promise<ArtifactRecord | undefined> {
  const rows = await q.query<ArtifactRecord>(
    `SELECT program_code, udf_toml, program_config, program_info,
            program_binary_source_checksum, program_binary_integrity_checksum
       FROM pipeline WHERE id = $1 AND program_status = 'Success'`,
    [pipelineId],
  );
  return rows[0];
}
