import type { RowChanges } from '../../lifecycle/changes.js';
import type { Queryable } from '../database.js';
import { RUNNER_COLUMNS } from '../pipelines/columns.js';
import type { PipelineRow, RunnerRow } from '../pipelines/row.js';
import { applyChanges } from '../pipelines/update.js';

export async function selectPipelineById(q: Queryable, id: string): Promise<RunnerRow | undefined> {
  const rows = await q.query<RunnerRow>(`SELECT ${RUNNER_COLUMNS} FROM pipeline WHERE id = $1`, [id]);
  return rows[0];
}

/**
 * Writes the runner's decision only if nobody changed the record since the runner read it (the
 * API bumps refresh_version on every change): false means re-read and decide again.
 */
export async function applyIfUnchanged(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  row: RunnerRow,
  changes: RowChanges,
): Promise<PipelineRow | undefined> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ refresh_version: number }>(
      'SELECT refresh_version FROM pipeline WHERE id = $1 FOR UPDATE',
      [row.id],
    );
    if (locked[0]?.refresh_version !== row.refresh_version) return undefined;
    return applyChanges(tx, row.id, changes);
  });
}

/** Pipelines the runner must look at regularly: anything not at rest. */
export async function activePipelineIds(
  q: Queryable,
): Promise<Array<{ id: string; deployment_resources_status: string }>> {
  return q.query(
    `SELECT id, deployment_resources_status FROM pipeline
      WHERE deployment_resources_status <> 'Stopped'
         OR deployment_resources_desired_status <> 'Stopped'
         OR storage_status = 'Clearing'`,
  );
}
