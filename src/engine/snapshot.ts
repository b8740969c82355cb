import type { ParkingDatabase } from '../pglite/parking.js';
import type { Relation } from './catalog.js';
import type { ViewMaintainer } from './maintain.js';
import type { NativeTables } from './native-tables.js';
import { pagesOf } from './operators/circuit-state.js';
import { readRows } from './query.js';
import { inSchema, quote, STATE } from './sql.js';
import type { Row } from './types.js';

// Where a snapshot of a relation reads its rows: a native table's own rows, a held native view's,
// else PGlite (a view's kept state, or the view evaluated over the tables, the native ones written
// in for that one query). A native table's are read as they are reached, so a snapshot taken page by
// page (the query replica's seed) never holds the whole table at once.

export interface SnapshotParts {
  db: ParkingDatabase;
  maintainer: Pick<ViewMaintainer, 'keepsState' | 'holds' | 'heldRows'>;
  natives: Pick<NativeTables, 'has' | 'snapshot' | 'fill' | 'names'>;
}

/** The rows of `relation` as a snapshot gives them (no step may run until they are read). */
export async function snapshotRows(parts: SnapshotParts, relation: Relation): Promise<Iterable<Row>> {
  const { db, maintainer, natives } = parts;
  if (relation.kind === 'table' && natives.has(relation.name)) return natives.snapshot(relation.name);
  if (relation.kind === 'view' && maintainer.holds(relation.name)) return maintainer.heldRows(relation.name);
  // A view kept without state (see ViewMaintainer) is evaluated: its tables are as of the last step.
  const source =
    relation.kind === 'view' && maintainer.keepsState(relation.name)
      ? inSchema(STATE, relation.name)
      : `public.${quote(relation.name)}`;
  // Evaluated over native tables: their rows go into PGlite for the one query, and out again.
  const evaluated = source === `public.${quote(relation.name)}` && natives.names.length > 0;
  return readRows(db, source, evaluated ? (tx) => natives.fill(tx) : undefined);
}

/** `rows` handed to `emit` `size` at a time (no empty page), each taken before the next is made. */
export async function snapshotPages(
  rows: Iterable<Row>,
  size: number,
  emit: (page: Row[]) => Promise<void>,
): Promise<void> {
  for (const page of pagesOf(rows, size)) if (page.length > 0) await emit(page);
}
