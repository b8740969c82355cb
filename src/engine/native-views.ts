import type { Tx } from '../pglite/lazy-transaction.js';
import { parseExact } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import { applyDelta } from './apply.js';
import type { Relation } from './catalog.js';
import { type SqlType, typeOf } from './expressions/types.js';
import { readSql, valueFromJson, valueToSqlJson } from './expressions/values.js';
import type { RowMaker } from './json-rows.js';
import type { Operator } from './operators/operator.js';
import type { OperatorProfile } from './operators/profile.js';
import { rebuildState } from './recompute.js';
import { columnList, DELTA, inSchema, insertJsonSql, quote, STATE, W } from './sql.js';
import type { Change } from './types.js';
import { ZSet } from './zset/zset.js';
import { Integral } from './traces/integral.js';

// The hybrid engine's seam between PGlite and the native circuits. PGlite still holds the tables
// (it checks input, applies primary-key upserts and multiset deletes, and writes each table's
// delta); a native view reads the deltas of what it reads (a table's or a PGlite-kept view's out of
// PGlite, a native view's straight from its circuit), and its own delta comes out of its circuit.
// A native view is written back into PGlite (its delta and its state) only where PGlite needs it:
// one a PGlite-kept view reads. A materialized one's rows are otherwise held in JS (Integral) for
// its snapshots, its query replica's seed and in-process queries.

export interface NativePlan {
  root: Operator;
  inputs: string[];
  types: SqlType[];
  /** Its rows as its changes carry them. */
  json: RowMaker;
  /** Its circuit's operators, what they hold and did (summed over the shards). */
  profile(): OperatorProfile[];
}

/** A step's delta of a relation (weighted rows, from `source`) as a Z-set of native rows. */
async function readDeltaZSet(tx: Tx, relation: Relation, source: string): Promise<ZSet> {
  const types = typesOfColumns(relation);
  const cols = relation.columns.map((c, i) => readSql(types[i]!, `s.${quote(c.name)}`));
  const w = `s.${quote(W)}`;
  const [r] = (
    await tx.query<{ j: string }>(
      `SELECT coalesce(json_agg(json_build_array(${[...cols, w].join(', ')})), '[]')::text AS j FROM ${source} s`,
    )
  ).rows;
  const z = new ZSet();
  addRows(z, types, r?.j ?? '[]');
  return z;
}

/**
 * Rows of a whole relation a page at a time (a cursor): one JSON text of a table's every row stops
 * fitting at a few million rows (PostgreSQL's 1 GB text, V8's 512 MiB string), and a restore
 * rebuilds every native circuit from its inputs' whole contents.
 */
const WHOLE_PAGE_ROWS = 10_000;
export async function readWhole(tx: Tx, relation: Relation, source: string): Promise<ZSet> {
  const z = new ZSet();
  await readPages(tx, relation, source, (page) => z.addAll(page));
  return z;
}

/** A whole relation's rows, a page of them at a time to `visit` (which must not use `tx`). */
async function readPages(tx: Tx, relation: Relation, source: string, visit: (page: ZSet) => void): Promise<void> {
  const types = typesOfColumns(relation);
  const cols = relation.columns.map((c, i) => readSql(types[i]!, `s.${quote(c.name)}`));
  await tx.exec(`DECLARE svc_native_read NO SCROLL CURSOR FOR
    SELECT json_build_array(${[...cols, '1'].join(', ')})::text AS j FROM ${source} s`);
  for (;;) {
    const rows = (await tx.query<{ j: string }>(`FETCH FORWARD ${WHOLE_PAGE_ROWS} FROM svc_native_read`)).rows;
    const page = new ZSet();
    addRows(page, types, `[${rows.map((p) => p.j).join(',')}]`);
    visit(page);
    if (rows.length < WHOLE_PAGE_ROWS) break;
  }
  await tx.exec('CLOSE svc_native_read');
}

/** A JSON array of rows, each its values then its weight, added to `z`. */
function addRows(z: ZSet, types: readonly SqlType[], json: string): void {
  for (const raw of parseExact(json) as unknown[][]) {
    const weight = Number(raw[raw.length - 1]);
    z.add(
      types.map((t, i) => valueFromJson(t, raw[i] ?? null)),
      weight,
    );
  }
}

export const typesOfColumns = (relation: Relation): SqlType[] => relation.columns.map((c) => typeOf(c.type));

/** A native delta as the changes a step reports (values as the PGlite path gives them). */
export function changesOf(json: RowMaker, delta: ZSet): Change[] {
  const { rows, weights } = delta;
  const out = new Array<Change>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = { weight: weights[i]!, row: json(rows[i]!) };
  return out;
}

/** One step's reads: each relation's delta read once, however many native views read it. */
export class StepDeltas {
  private readonly cache = new Map<string, ZSet>();
  constructor(
    private readonly tx: Tx,
    private readonly byName: ReadonlyMap<string, Relation>,
    private readonly where: (relation: string) => string,
    /** Tables part of whose delta the shards keep (workers/kept.ts). */
    private readonly onShards: ReadonlySet<string> = new Set(),
  ) {}

  kept(relation: string): boolean {
    return this.onShards.has(relation);
  }

  set(relation: string, delta: ZSet): void {
    this.cache.set(relation, delta);
  }

  async load(relations: readonly string[], changed: (r: string) => boolean): Promise<void> {
    for (const r of relations)
      if (changed(r) && !this.cache.has(r))
        this.cache.set(r, await readDeltaZSet(this.tx, this.byName.get(r)!, this.where(r)));
  }

  delta(relation: string): ZSet {
    return this.cache.get(relation) ?? new ZSet();
  }
}

/** A native view to evaluate from scratch, and where its value goes besides its circuit. */
export interface NativeRebuild {
  view: Relation;
  plan: NativePlan;
  mirrored: boolean;
  held: Integral | undefined;
}

/**
 * Every native view evaluated from its inputs' whole contents (at load, after a restore), in
 * dependency order. A circuit reset and fed its inputs whole gives the change from its value over
 * empty inputs (a global aggregate's row of empty input is in that value, not in the change), so a
 * view's value is that value over empty inputs (emptyValues) plus the change. A native table's rows
 * come from `nativeWhole` (PGlite's copy stays empty: its memory, once grown, stays grown); another
 * relation's from PGlite, or, a native view's, as evaluated just before.
 */
export async function rebuildNatives(
  tx: Tx,
  views: readonly NativeRebuild[],
  byName: ReadonlyMap<string, Relation>,
  nativeWhole: (table: string) => ZSet | undefined,
): Promise<void> {
  if (views.length === 0) return;
  const read = new Set(views.flatMap((v) => v.plan.inputs));
  // Only a value kept below needs its value over empty inputs: none, no savepoint (a plain load).
  const valued = new Set(views.filter((v) => v.held || read.has(v.view.name)).map((v) => v.view.name));
  const empty = valued.size > 0 ? await emptyValues(tx, views, byName, valued) : new Map<string, ZSet>();
  // The values of native views other native views read; a view neither held nor read by another
  // native view keeps no value here at all (a join's can be large): only its circuit's state.
  const values = new Map<string, ZSet>();
  for (const { view, plan, mirrored, held } of views) {
    plan.root.reset();
    const kept = held ?? (read.has(view.name) ? new Integral() : undefined);
    kept?.replace(empty.get(view.name)!);
    // Each input fed whole, or a page at a time from PGlite: the circuit is incremental, so its
    // state and the sum of its changes come out the same, and no relation is ever whole in JS.
    const feed = (r: string, delta: ZSet) => {
      const change = plan.root.step({ delta: (name) => (name === r ? delta : new ZSet()) });
      kept?.add(change);
    };
    for (const r of new Set(plan.inputs)) {
      const whole = values.get(r) ?? nativeWhole(r);
      if (whole) feed(r, whole);
      else await readPages(tx, byName.get(r)!, `public.${quote(r)}`, (page) => feed(r, page));
    }
    if (kept && read.has(view.name)) values.set(view.name, kept.whole());
    if (mirrored) await rebuildState(tx, view);
  }
}

/**
 * Each native view's value over empty direct inputs, evaluated by PostgreSQL in a savepoint rolled
 * back: every table truncated, every other view replaced by an empty one of its columns, and each
 * native view, once evaluated, replaced too before the views that read it are (a view over a global
 * aggregate sees no row, as its circuit does after a reset, not the aggregate's row of empty input).
 */
async function emptyValues(
  tx: Tx,
  views: readonly NativeRebuild[],
  byName: ReadonlyMap<string, Relation>,
  wanted: ReadonlySet<string>,
): Promise<Map<string, ZSet>> {
  const native = new Set(views.map((v) => v.view.name));
  const blank = async (name: string) => {
    const target = `public.${quote(name)}`;
    const [row] = (await tx.query<{ def: string }>(`SELECT pg_get_viewdef($1::regclass) AS def`, [target])).rows;
    const def = (row?.def ?? '').trim().replace(/;$/, '');
    await tx.exec(`CREATE OR REPLACE VIEW ${target} AS SELECT * FROM (${def}) s WHERE false`);
  };
  const tables = [...byName.values()].filter((r) => r.kind === 'table').map((r) => `public.${quote(r.name)}`);
  const empty = new Map<string, ZSet>();
  await tx.exec('SAVEPOINT svc_empty_inputs');
  try {
    if (tables.length > 0) await tx.exec(`TRUNCATE ${tables.join(', ')}`);
    for (const r of byName.values()) if (r.kind === 'view' && !native.has(r.name)) await blank(r.name);
    for (const { view } of views) {
      if (wanted.has(view.name)) empty.set(view.name, await readWhole(tx, view, `public.${quote(view.name)}`));
      await blank(view.name);
    }
  } finally {
    await tx.exec('ROLLBACK TO SAVEPOINT svc_empty_inputs');
    await tx.exec('RELEASE SAVEPOINT svc_empty_inputs');
  }
  return empty;
}

/** Rows of a Z-set as json_populate_recordset reads them into the view's columns (every value exactly). */
function sqlRows(view: Relation, types: readonly SqlType[], z: ZSet, weight?: string): Record<string, JsonValue>[] {
  const rows: Record<string, JsonValue>[] = [];
  for (const { row, weight: w } of z) {
    const r: Record<string, JsonValue> = weight ? { [weight]: w } : {};
    view.columns.forEach((c, i) => (r[c.name] = valueToSqlJson(types[i]!.base, row[i]!)));
    if (weight) rows.push(r);
    else for (let n = 0; n < w; n++) rows.push(r);
  }
  return rows;
}

/**
 * A held view's rows put into its (empty) state table, for an in-process query that reads it; the
 * caller rolls it back.
 */
export async function fillHeld(
  tx: Pick<Tx, 'query'>,
  view: Relation,
  types: readonly SqlType[],
  held: Integral,
): Promise<void> {
  const target = inSchema(STATE, view.name);
  await tx.query(insertJsonSql(target), [JSON.stringify(sqlRows(view, types, held.whole()))]);
}

/** A native view's delta written into PGlite: its delta table, and its state (every value exactly). */
export async function mirror(tx: Tx, view: Relation, types: readonly SqlType[], changes: ZSet): Promise<void> {
  const delta = inSchema(DELTA, view.name);
  const rows = sqlRows(view, types, changes, W);
  await tx.exec(`TRUNCATE ${delta}`);
  await tx.query(
    `INSERT INTO ${delta} (${columnList(view.columns)}, ${quote(W)})
       SELECT ${columnList(view.columns)}, ${quote(W)} FROM json_populate_recordset(NULL::${delta}, $1::json)`,
    [JSON.stringify(rows)],
  );
  await applyDelta(tx, STATE, view.name, delta, view.columns);
}
