import type { EditableFields } from '../../lifecycle/edit.js';
import type { ManagedBy } from '../../model/pipeline-resource.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import type { Queryable } from '../database.js';
import { columnsFor } from './columns.js';
import { insertPipeline } from './insert.js';

// The records that Pipeline resources declare (column managed_by, migration 005): created with their
// owner in one transaction, so no REST call can edit a half-made one; read all at once per look of
// the runner's controller.

export async function insertManagedPipeline(
  tx: Queryable,
  id: string,
  platformVersion: string,
  fields: EditableFields,
  owner: ManagedBy,
): Promise<PipelineRow> {
  const row = await insertPipeline(tx, id, platformVersion, fields);
  await tx.query('UPDATE pipeline SET managed_by = $2::jsonb WHERE id = $1', [id, JSON.stringify(owner)]);
  return { ...row, managed_by: owner };
}

/**
 * Every record with an owner in one of `namespaces`, or with any owner ('all') (name → row: a
 * pipeline's name is unique, whichever namespace declares it).
 */
export async function selectManagedPipelines(
  q: Queryable,
  namespaces: readonly string[] | 'all',
): Promise<Map<string, PipelineRow>> {
  const rows =
    namespaces === 'all'
      ? await q.query<PipelineRow>(`SELECT ${columnsFor('all')} FROM pipeline WHERE managed_by IS NOT NULL`)
      : await q.query<PipelineRow>(
          `SELECT ${columnsFor('all')} FROM pipeline WHERE managed_by->>'namespace' = ANY($1::text[])`,
          [namespaces],
        );
  return new Map(rows.map((r) => [r.name, r]));
}

/** Hands a record back to REST (its resource is gone but its storage is kept): no owner any more. */
export async function releaseManagedPipeline(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE pipeline SET managed_by = NULL WHERE id = $1', [id]);
}
