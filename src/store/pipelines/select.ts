import type { Selector } from '../../model/status.js';
import type { Queryable } from '../database.js';
import { columnsFor } from './columns.js';
import type { PipelineRow, PipelineStatusRow } from '../../model/pipeline-row.js';

export type RowFor<S extends Selector> = S extends 'all' ? PipelineRow : PipelineStatusRow;

export async function selectPipeline<S extends Selector>(
  q: Queryable,
  name: string,
  selector: S,
): Promise<RowFor<S> | undefined> {
  const rows = await q.query<RowFor<S>>(`SELECT ${columnsFor(selector)} FROM pipeline WHERE name = $1`, [name]);
  return rows[0];
}

export function listPipelines<S extends Selector>(q: Queryable, selector: S): Promise<RowFor<S>[]> {
  // COLLATE "C": byte order, the same on every server whatever its locale.
  return q.query<RowFor<S>>(`SELECT ${columnsFor(selector)} FROM pipeline ORDER BY name COLLATE "C"`);
}

/** The full row, locked until the transaction ends: every read-modify-write of the API goes here. */
export async function selectPipelineForUpdate(tx: Queryable, name: string): Promise<PipelineRow | undefined> {
  const rows = await tx.query<PipelineRow>(`SELECT ${columnsFor('all')} FROM pipeline WHERE name = $1 FOR UPDATE`, [
    name,
  ]);
  return rows[0];
}

export async function pipelineExists(q: Queryable, name: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM pipeline WHERE name = $1', [name])).length > 0;
}
