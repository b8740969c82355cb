import type { Change, Row } from '../../src/engine/types.js';

/** One random change of a table: an insert of `row`, or a delete of the held row `pick` points at. */
export interface HeldOp<R extends Row> {
  insert: boolean;
  row: R;
  pick: number;
}

/**
 * A step's changes from random ops, and `held` (the table's rows) kept in step with them: an insert
 * adds its row; a delete removes a row the table holds (an insert when it holds none), so no delete
 * is of a row that is not there.
 */
export function heldChanges<R extends Row>(held: R[], ops: readonly HeldOp<R>[]): Change[] {
  return ops.map((o) => {
    if (o.insert || held.length === 0) {
      held.push(o.row);
      return { weight: 1, row: o.row };
    }
    const [gone] = held.splice(o.pick % held.length, 1);
    return { weight: -1, row: gone! };
  });
}
