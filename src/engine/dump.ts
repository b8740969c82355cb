import type { Tx } from '../pglite/lazy-transaction.js';
import type { Database } from '../pglite/parking.js';
import type { Relation } from './catalog.js';
import type { ColumnInfo } from './types.js';
import { inSchema, ORD, quote, STAGE, STATE, W } from './sql.js';

// The engine's state as a checkpoint takes it: the tables' rows, the views' kept state, and the
// input buffered for the next step (so a checkpoint loses none of what was accepted). Taken between
// steps, in one turn of the engine's queue and one transaction, so the three agree.
//
// It travels in pages, never as one value: the state as one JSON text stopped fitting at a few
// million rows (PostgreSQL's 1 GB text, V8's 512 MiB string) and took three times its size in memory
// before that. A table or a view's state goes a range of heap blocks at a time, each range one JSON
// array made by PostgreSQL and passed on as text, unparsed (measured on 1,000,000 rows: 1.1 s, where
// a cursor's rows one by one took 3.1 s). The buffered input goes through a cursor in arrival order.

export type StateSection = 'table' | 'view' | 'circuit' | 'staged';

/** Which part of the circuit state a `circuit` page is (operators/circuit-state.ts). */
export interface CircuitPart {
  shard: number;
  shards: number;
  version: number;
}

/**
 * One page of a dump: `json` is a JSON array of `rows` objects (a staged one: `{"weight", "row"}`),
 * on one line (JSON escapes a line break within a value).
 */
export interface DumpedPage {
  section: StateSection;
  name: string;
  rows: number;
  json: string;
  /** A `circuit` page's part. */
  circuit?: CircuitPart;
}

export interface PageSizes {
  /** Heap blocks of a table or a view's state per page (64: 512 KiB of rows). */
  blocks: number;
  /** Rows of buffered input per page. */
  rows: number;
}
export const PAGE_SIZES: PageSizes = { blocks: 64, rows: 10_000 };

type Emit = (rows: number, json: string) => Promise<void>;

/**
 * The columns as a page spells them: a numeric as a JSON string. As a JSON number, 2.50 was read
 * back (parseExact) as the double 2.5 and restored as 2.5: a different row to a multiset delete of
 * 2.50, which then deleted nothing after a restart (found by the native property test's restart).
 * A string goes through numeric's own input on restore, COPY's or JSON's, with its scale.
 */
const exactColumns = (columns: readonly ColumnInfo[], from: string): string =>
  columns
    .map((c) => {
      const col = `${from}.${quote(c.name)}`;
      return /^numeric\b/.test(c.type) && !c.type.endsWith(']') ? `${col}::text AS ${quote(c.name)}` : col;
    })
    .join(', ');

/** A relation by ranges of its heap blocks (a TID range scan each). */
async function blockPages(
  tx: Tx,
  relation: string,
  columns: readonly ColumnInfo[],
  emit: Emit,
  blocks: number,
): Promise<void> {
  const [size] = (
    await tx.query<{ blocks: number }>(
      `SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS blocks`,
      [relation],
    )
  ).rows;
  for (let from = 0; from < (size?.blocks ?? 0); from += blocks) {
    // `__svc_row`: a column of the user's named like a shorter alias would win over it. Not json_agg:
    // it puts line breaks between elements, and a page must be one line of the checkpoint file.
    const [page] = (
      await tx.query<{ json: string | null; n: number }>(
        `SELECT '[' || string_agg(row_to_json(__svc_row)::text, ',') || ']' AS json, count(*)::int AS n
           FROM (SELECT ${exactColumns(columns, '__svc_src')} FROM ${relation} __svc_src
                  WHERE ctid >= $1::tid AND ctid < $2::tid) __svc_row`,
        [`(${from},0)`, `(${from + blocks},0)`],
      )
    ).rows;
    if (page?.json && page.n > 0) await emit(page.n, page.json);
  }
}

/** The input buffered for the next step, in the order it arrived, through a cursor. */
async function stagedPages(tx: Tx, table: Relation, emit: Emit, rows: number): Promise<void> {
  await tx.exec(`DECLARE svc_dump NO SCROLL CURSOR FOR
    SELECT json_build_object('weight', s.${W}, 'row',
             (SELECT row_to_json(__svc_row) FROM (SELECT ${exactColumns(table.columns, 's')}) __svc_row))::text AS j
      FROM ${inSchema(STAGE, table.name)} s ORDER BY s.${ORD}`);
  for (;;) {
    const page = (await tx.query<{ j: string }>(`FETCH FORWARD ${rows} FROM svc_dump`)).rows;
    if (page.length > 0) await emit(page.length, `[${page.map((r) => r.j).join(',')}]`);
    if (page.length < rows) break;
  }
  await tx.exec('CLOSE svc_dump');
}

/**
 * Hands every page of the state to `emit`, in the order a restore wants them: the tables, then the
 * views' state and the native circuits', then the input buffered for the next step. Empty relations give no page, and only
 * views whose state is a table of rows (`keepsRows`) give any: the others' state is derived from
 * other tables (an aggregate's) or there is none (a stateless view's), and a restore rebuilds it.
 */
export async function dumpState(
  db: Database,
  catalog: readonly Relation[],
  keepsRows: (view: string) => boolean,
  emit: (page: DumpedPage) => Promise<void>,
  sizes: PageSizes = PAGE_SIZES,
  /** Tables held outside PGlite (native-tables.ts): their rows and buffered input. */
  natives?: {
    has(table: string): boolean;
    dump(section: 'table' | 'staged', emit: (page: DumpedPage) => Promise<void>, rows: number): Promise<void>;
  },
  /** The native views' circuit state (circuit-checkpoint.ts), after the views' rows. */
  circuits?: (emit: (page: DumpedPage) => Promise<void>, rows: number) => Promise<void>,
): Promise<void> {
  // A native table's PGlite copy holds nothing (its rows and input are the natives' pages): not read,
  // so that a checkpoint of an all-native engine leaves its parked PGlite parked.
  const tables = catalog.filter((r) => r.kind === 'table' && !natives?.has(r.name));
  const views = catalog.filter((r) => r.kind === 'view' && keepsRows(r.name));
  await db.transaction(async (tx) => {
    const to =
      (section: StateSection, name: string): Emit =>
      (rows, json) =>
        emit({ section, name, rows, json });
    for (const t of tables)
      await blockPages(tx, `public.${quote(t.name)}`, t.columns, to('table', t.name), sizes.blocks);
    await natives?.dump('table', emit, sizes.rows);
    for (const v of views) await blockPages(tx, inSchema(STATE, v.name), v.columns, to('view', v.name), sizes.blocks);
    await circuits?.(emit, sizes.rows);
    for (const t of tables) await stagedPages(tx, t, to('staged', t.name), sizes.rows);
    await natives?.dump('staged', emit, sizes.rows);
  });
}
