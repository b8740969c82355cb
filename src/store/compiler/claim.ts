import type { ProgramConfig } from '../../model/program-config.js';
import type { ProgramInfo } from '../../model/program.js';
import type { Queryable } from '../database.js';

// The compiler's claims: the oldest waiting pipeline whose resources are Stopped moves to the
// stage's Compiling* status under this instance's name. SKIP LOCKED lets several compilers claim
// at once without waiting on each other's rows.

export interface CompileJob {
  id: string;
  name: string;
  program_version: number;
  program_code: string;
  udf_rust: string;
  udf_toml: string;
  program_config: ProgramConfig;
  program_info: ProgramInfo | null;
}

const claim = (from: string, to: string): string => `
  UPDATE pipeline p
     SET program_status = '${to}', program_status_since = clock_timestamp(), compiler_instance = $1
   WHERE p.id = (SELECT id FROM pipeline
                  WHERE program_status = '${from}' AND deployment_resources_status = 'Stopped'
                  ORDER BY program_status_since, id LIMIT 1 FOR UPDATE SKIP LOCKED)
     AND p.program_status = '${from}'
  RETURNING p.id, p.name, p.program_version::int AS program_version, p.program_code, p.udf_rust, p.udf_toml,
            p.program_config, p.program_info`;

const CLAIM_SQL = claim('Pending', 'CompilingSql');
const CLAIM_BUILD = claim('SqlCompiled', 'CompilingRust');

export async function claimPending(q: Queryable, instance: string): Promise<CompileJob | undefined> {
  return (await q.query<CompileJob>(CLAIM_SQL, [instance]))[0];
}

export async function claimSqlCompiled(q: Queryable, instance: string): Promise<CompileJob | undefined> {
  return (await q.query<CompileJob>(CLAIM_BUILD, [instance]))[0];
}
