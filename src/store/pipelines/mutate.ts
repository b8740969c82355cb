import { isEmpty, type Plan } from '../../lifecycle/changes.js';
import { unknownPipeline } from '../../model/errors.js';
import type { Database } from '../database.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { selectPipelineForUpdate } from './select.js';
import { applyChanges } from './update.js';

/**
 * Read-decide-write under a row lock: the row is locked, a pure rule decides, the decision is
 * written, all in one transaction. Concurrent edits of one pipeline therefore apply one after the
 * other, each to the state the previous one left, and a rejected edit writes nothing.
 */
export async function mutatePipeline(
  db: Database,
  name: string,
  decide: (row: PipelineRow) => Plan,
): Promise<{ before: PipelineRow; after: PipelineRow; changed: boolean }> {
  return db.transaction(async (tx) => {
    const before = await selectPipelineForUpdate(tx, name);
    if (!before) throw unknownPipeline(name);
    const plan = decide(before);
    if (!plan.ok) throw plan.error;
    if (isEmpty(plan.changes)) return { before, after: before, changed: false };
    const after = await applyChanges(tx, before.id, plan.changes);
    return { before, after, changed: true };
  });
}
