import { type SvcError, unknownPipeline } from '../../model/errors.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import type { Database, Queryable } from '../database.js';
import { selectPipelineForUpdate } from './select.js';

export async function deletePipeline(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM pipeline WHERE id = $1', [id]);
}

/**
 * Deletes the pipeline called `name` under a row lock, unless `refuse` (a pure rule) objects to the
 * row as it is then; answers the deleted row.
 */
export async function deletePipelineNamed(
  db: Database,
  name: string,
  refuse: (row: PipelineRow) => SvcError | undefined | null,
): Promise<PipelineRow> {
  return db.transaction(async (tx) => {
    const current = await selectPipelineForUpdate(tx, name);
    if (!current) throw unknownPipeline(name);
    const refusal = refuse(current);
    if (refusal) throw refusal;
    await deletePipeline(tx, current.id);
    return current;
  });
}
