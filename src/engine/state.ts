import type { Database } from '../pglite/parking.js';
import { SvcError } from '../model/errors.js';
import { isObject, type JsonValue } from '../model/json.js';
import type { Relation } from './catalog.js';
import { stage } from './ingest.js';
import type { ViewMaintainer } from './maintain.js';
import type { NativeTables } from './native-tables.js';
import type { CircuitPart, StateSection } from './dump.js';
import type { CircuitRestore } from './circuit-checkpoint.js';
import { copyable, copyRowsText } from './copy-text.js';
import { columnList, inSchema, insertJsonSql, quote, STATE } from './sql.js';
import type { ColumnInfo } from './types.js';

// A checkpoint's state given back to the engine (src/engine/dump.ts takes it): a page at a time,
// tables first, then the views' state, then the input that was buffered for the next step.

/** One page given back to a restore, parsed. */
export interface StatePage {
  section: StateSection;
  name: string;
  rows: JsonValue[];
  /** A `circuit` page's part. */
  circuit?: CircuitPart;
}

export interface Restored {
  restored: Record<string, number>;
  skipped: string[];
  /** Records put back into the staging tables (applied by the next step). */
  staged: Record<string, number>;
  /**
   * Whether the native views' circuits took their state back from the checkpoint, or why not (then
   * they were evaluated from the tables). Absent with no native view.
   */
  circuits?: { resumed: true } | { resumed: false; reason: string };
}

/** What a restore reads: the views whose state the checkpoint holds, and its pages in dump order. */
export interface StateSource {
  views: readonly string[];
  pages: AsyncIterable<StatePage>;
}

const isChange = (v: JsonValue): v is { weight: number; row: { [key: string]: JsonValue } } =>
  isObject(v) && typeof v['weight'] === 'number' && isObject(v['row']);

/**
 * Loads a checkpoint. `strict` (replay of the same program) fails on anything that does not fit and
 * takes the views' state as written; otherwise (bootstrap of a changed program) a table whose rows
 * no longer fit is left empty and reported, and the views are evaluated from the tables.
 */
export async function restoreState(
  db: Database,
  catalog: readonly Relation[],
  source: StateSource,
  strict: boolean,
  views: Pick<ViewMaintainer, 'keepsRows' | 'rebuild' | 'rebuildNatives' | 'circuitRestore'>,
  natives?: Pick<NativeTables, 'has' | 'ingest' | 'restorePage' | 'clear' | 'whole'>,
): Promise<Restored> {
  const out: Restored = { restored: {}, skipped: [], staged: {} };
  const viewList = catalog.filter((r) => r.kind === 'view');
  const held = new Set(source.views);
  const kept = strict && viewList.every((v) => held.has(v.name));
  const takesRows = (name: string) => kept && views.keepsRows(name);
  // The state the engine computed at load (from empty tables) makes way for the checkpoint's.
  for (const view of viewList) if (takesRows(view.name)) await db.exec(`TRUNCATE ${inSchema(STATE, view.name)}`);
  const skipped = new Set<string>();
  const circuits = circuitsOf(views.circuitRestore(), kept);
  for await (const page of source.pages) {
    if (page.section === 'circuit') {
      circuits.take(page);
      continue;
    }
    if (page.section === 'view') {
      const view = viewList.find((v) => v.name === page.name);
      if (view && takesRows(page.name)) await insertRows(db, inSchema(STATE, page.name), view.columns, page.rows);
      continue;
    }
    const table = catalog.find((r) => r.kind === 'table' && r.name === page.name);
    if (page.section === 'staged') await restoreStaged(db, table, page, strict, out, natives);
    else await restoreTablePage(db, table, page, { strict, out, skipped, natives });
  }
  const outcome = circuits.outcome();
  await db.transaction(async (tx) => {
    for (const view of viewList) if (!takesRows(view.name)) await views.rebuild(tx, view);
    await views.rebuildNatives(tx, (table) => natives?.whole(table), outcome?.resumed ?? false);
  });
  return outcome ? { ...out, circuits: outcome } : out;
}

/** The circuits' state as a restore takes it: none to take, or (a bootstrap: another program's) none taken. */
function circuitsOf(
  restore: CircuitRestore | undefined,
  kept: boolean,
): Pick<CircuitRestore, 'take'> & { outcome(): Restored['circuits'] } {
  if (restore && kept) return restore;
  return {
    take: () => undefined,
    outcome: () => (restore ? { resumed: false, reason: 'a changed program' } : undefined),
  };
}

const mismatch = (message: string) => new SvcError(500, 'CheckpointMismatch', message);

/** Input buffered when the checkpoint was taken goes back to staging, checked as on ingest. */
async function restoreStaged(
  db: Database,
  table: Relation | undefined,
  page: StatePage,
  strict: boolean,
  out: Restored,
  natives: Pick<NativeTables, 'has' | 'ingest'> | undefined,
): Promise<void> {
  if (!table) return;
  const changes = page.rows.filter(isChange);
  if (strict && changes.length < page.rows.length)
    throw mismatch(`the input buffered for ${page.name} is not weighted rows`);
  const checked = natives?.has(table.name)
    ? await natives.ingest(db, table.name, changes, true) // spelled as a checkpoint's pages are
    : await stage(db, table, changes);
  if (strict && checked.errors.length > 0) throw mismatch(`cannot restore the input buffered for ${page.name}`);
  out.staged[page.name] = (out.staged[page.name] ?? 0) + checked.accepted;
}

/** A page of a table's rows. A table is restored whole or (bootstrap) left empty and reported. */
async function restoreTablePage(
  db: Database,
  table: Relation | undefined,
  page: StatePage,
  run: {
    strict: boolean;
    out: Restored;
    skipped: Set<string>;
    natives?: Pick<NativeTables, 'has' | 'restorePage' | 'clear'>;
  },
): Promise<void> {
  const { strict, out, skipped, natives } = run;
  // A native table's rows go straight into it, converted as an ingest converts them.
  const native = natives?.has(page.name) ? natives : undefined;
  const { name } = page;
  if (!table) {
    if (strict) throw mismatch(`the checkpoint has rows of an unknown table ${name}`);
    if (!skipped.has(name)) out.skipped.push(name);
    skipped.add(name);
    return;
  }
  if (skipped.has(name)) return;
  try {
    if (native) await native.restorePage(db, name, page.rows);
    else await insertRows(db, `public.${quote(name)}`, table.columns, page.rows);
    out.restored[name] = (out.restored[name] ?? 0) + page.rows.length;
  } catch (error) {
    if (strict) throw mismatch(`cannot restore table ${name}: ${(error as Error).message}`);
    // The pages before this one go too.
    if (native) native.clear(name);
    else await db.exec(`TRUNCATE public.${quote(name)}`);
    delete out.restored[name];
    out.skipped.push(name);
    skipped.add(name);
  }
}

// Both ways map members to columns by name: members of dropped columns are ignored and new columns
// get NULL, which is what a bootstrap of a changed table wants. COPY first where the columns' types
// read a CSV field as they read the JSON value (src/engine/copy-text.ts; measured on 1,000,000 rows:
// about twice as fast); JSON when they do not, when a value cannot go as CSV, or when COPY refuses
// the page (then JSON decides, with its own message).
async function insertRows(
  db: Pick<Database, 'query'>,
  target: string,
  columns: readonly ColumnInfo[],
  rows: JsonValue[],
): Promise<void> {
  if (rows.length === 0) return;
  if (copyable(columns) && rows.every(isObject)) {
    try {
      const blob = new Blob([copyRowsText(columns, rows as Record<string, unknown>[])]);
      await db.query(`COPY ${target} (${columnList(columns)}) FROM '/dev/blob' (FORMAT csv)`, [], { blob });
      return;
    } catch {
      // JSON below.
    }
  }
  await db.query(insertJsonSql(target), [JSON.stringify(rows)]);
}
