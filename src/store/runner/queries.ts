import type { RowChanges } from '../../lifecycle/changes.js';
import type { Queryable } from '../database.js';
import { RUNNER_COLUMNS } from '../pipelines/columns.js';
import type { VersionedRunnerRow } from '../../model/pipeline-row.js';
import { changesStatement } from '../pipelines/update.js';

/** The runner's columns plus the row's version (its tuple's xmin; see VersionedRunnerRow). */
export const RUNNER_SELECT = `${RUNNER_COLUMNS}, xmin::text AS row_version`;

export async function selectPipelineById(q: Queryable, id: string): Promise<VersionedRunnerRow | undefined> {
  const rows = await q.query<VersionedRunnerRow>(`SELECT ${RUNNER_SELECT} FROM pipeline WHERE id = $1`, [id]);
  return rows[0];
}

/**
 * Writes the runner's decision only if nobody changed the record since the runner read it: the
 * row's version must be the one read (any write moves it, the API's, the compiler's or another
 * runner's). One conditional UPDATE, no transaction: under READ COMMITTED a concurrent writer's
 * new row version is re-checked against the condition, so a decision made on an old row never
 * lands. Undefined means re-read and decide again; else the row as written.
 */
export async function applyIfUnchanged(
  q: Queryable,
  row: VersionedRunnerRow,
  changes: RowChanges,
): Promise<VersionedRunnerRow | undefined> {
  const { sql, params } = changesStatement(row.id, changes, RUNNER_SELECT, row.row_version);
  return (await q.query<VersionedRunnerRow>(sql, params))[0];
}

export interface ActivePipeline {
  id: string;
  deployment_resources_status: string;
  row_version: string;
}

/** Pipelines the runner must look at regularly (anything not at rest), with their row versions. */
export async function activePipelineIds(q: Queryable): Promise<ActivePipeline[]> {
  return q.query(
    `SELECT id, deployment_resources_status, xmin::text AS row_version FROM pipeline
      WHERE deployment_resources_status <> 'Stopped'
         OR deployment_resources_desired_status <> 'Stopped'
         OR storage_status = 'Clearing'`,
  );
}
