import type { RowChanges } from '../../lifecycle/changes.js';
import type { Queryable } from '../database.js';
import { columnsFor } from './columns.js';
import type { PipelineRow } from '../../model/pipeline-row.js';

const JSONB = new Set([
  'tags',
  'program_config',
  'runtime_config',
  'program_error',
  'program_info',
  'deployment_config',
  'deployment_error',
  'deployment_resources_status_details',
  'deployment_runtime_status_details',
  'storage_status_details',
]);
const COLUMN = /^[a-z_]+$/;

const toParam = (column: string, value: unknown): unknown =>
  JSONB.has(column) && value !== null ? JSON.stringify(value) : value;

/**
 * A rule's decision as one statement: UPDATE … RETURNING `columns` (a SELECT when nothing changes).
 * `rowVersion` makes it conditional on the row's version (xmin) being that one.
 */
export function changesStatement(
  id: string,
  changes: RowChanges,
  columns: string,
  rowVersion?: string,
): { sql: string; params: unknown[] } {
  const assignments: string[] = [];
  const params: unknown[] = [id];
  for (const [column, value] of Object.entries(changes.set)) {
    // Column names come from the typed rules, never from input; the check keeps it that way.
    if (!COLUMN.test(column)) throw new Error(`invalid column name ${column}`);
    params.push(toParam(column, value));
    assignments.push(`${column} = $${params.length}${JSONB.has(column) ? '::jsonb' : ''}`);
  }
  for (const column of changes.stamp) assignments.push(`${column} = clock_timestamp()`);
  for (const counter of changes.bump) assignments.push(`${counter} = ${counter} + 1`);
  let where = 'id = $1';
  if (rowVersion !== undefined) {
    params.push(rowVersion);
    where += ` AND xmin::text = $${params.length}`;
  }
  const sql =
    assignments.length === 0
      ? `SELECT ${columns} FROM pipeline WHERE ${where}`
      : `UPDATE pipeline SET ${assignments.join(', ')} WHERE ${where} RETURNING ${columns}`;
  return { sql, params };
}

/** Executes a rule's decision as one UPDATE and returns the updated row (all columns unless told). */
export async function applyChanges<R extends object = PipelineRow>(
  tx: Queryable,
  id: string,
  changes: RowChanges,
  columns: string = columnsFor('all'),
): Promise<R> {
  const { sql, params } = changesStatement(id, changes, columns);
  const rows = await tx.query<R>(sql, params);
  const row = rows[0];
  if (!row) throw new Error(`pipeline ${id} vanished inside its own transaction`);
  return row;
}
