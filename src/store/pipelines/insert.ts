import type { EditableFields } from '../../lifecycle/edit.js';
import { duplicateName } from '../../model/errors.js';
import type { Queryable } from '../database.js';
import { columnsFor } from './columns.js';
import { isUniqueViolation } from '../../model/database-errors.js';
import type { PipelineRow } from '../../model/pipeline-row.js';

export async function insertPipeline(
  q: Queryable,
  id: string,
  platformVersion: string,
  f: EditableFields,
): Promise<PipelineRow> {
  try {
    const rows = await q.query<PipelineRow>(
      `INSERT INTO pipeline (id, name, description, tags, platform_version, program_code, udf_rust, udf_toml,
         runtime_config, program_config)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::jsonb, $10::jsonb)
       RETURNING ${columnsFor('all')}`,
      [
        id,
        f.name,
        f.description,
        JSON.stringify(f.tags),
        platformVersion,
        f.program_code,
        f.udf_rust,
        f.udf_toml,
        JSON.stringify(f.runtime_config),
        JSON.stringify(f.program_config),
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('INSERT returned no row');
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(f.name);
    throw error;
  }
}
