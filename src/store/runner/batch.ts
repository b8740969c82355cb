import type { RowChanges } from '../../lifecycle/changes.js';
import type { Queryable } from '../database.js';
import type { VersionedRunnerRow } from '../../model/pipeline-row.js';
import { changesStatement } from '../pipelines/update.js';
import { RUNNER_SELECT } from './queries.js';

// Several of the runner's conditional writes as one statement: each write is the same conditional
// UPDATE as applyIfUnchanged, as a data-modifying CTE of its own. The writes that waited while the
// database was busy (runner/write-batch.ts) go in one round trip instead of one each.

export interface PendingWrite {
  row: VersionedRunnerRow;
  changes: RowChanges;
}

/** `$n` → `$(n + offset)`: the statements are built by changesStatement, whose SQL has no other `$`. */
const shift = (sql: string, offset: number): string =>
  sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

/** One statement for `writes` (distinct pipelines): the rows written, each once. */
export function batchStatement(writes: readonly PendingWrite[]): { sql: string; params: unknown[] } {
  const ctes: string[] = [];
  const params: unknown[] = [];
  writes.forEach(({ row, changes }, i) => {
    const one = changesStatement(row.id, changes, RUNNER_SELECT, row.row_version);
    ctes.push(`w${i} AS (${shift(one.sql, params.length)})`);
    params.push(...one.params);
  });
  const union = writes.map((_, i) => `SELECT * FROM w${i}`).join(' UNION ALL ');
  return { sql: `WITH ${ctes.join(', ')} ${union}`, params };
}

/**
 * Applies each write only if its row is still at the version read (as applyIfUnchanged does, in
 * one statement): the rows written by id; a pipeline missing from the result was changed by
 * someone else meanwhile. The pipelines must be distinct (one look per pipeline at a time).
 */
export async function applyAllIfUnchanged(
  q: Queryable,
  writes: readonly PendingWrite[],
): Promise<Map<string, VersionedRunnerRow>> {
  const { sql, params } = batchStatement(writes);
  const rows = await q.query<VersionedRunnerRow>(sql, params);
  return new Map(rows.map((r) => [r.id, r]));
}
