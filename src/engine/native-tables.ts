import { rowMaker, type RowMaker } from './json-rows.js';
import type { Tx } from '../pglite/lazy-transaction.js';
import type { Database } from '../pglite/parking.js';
import { parseExact } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { Relation } from './catalog.js';
import type { DumpedPage } from './dump.js';
import type { SqlType } from './expressions/types.js';
import { readSql, valueFromJson, valueToJson, valueToSqlJson } from './expressions/values.js';
import { type Checked, shapeError, stage } from './ingest.js';
import { type RecordReader, tableReader } from './native-input.js';
import { columnsReason, constrained } from './native-reasons.js';
import { type Prepared, NativeTable, type ShardRows } from './native-table.js';
import { writePages } from './native-table-pages.js';
import { removeSpillDir, type Spill, spillPages } from './traces/page-file.js';
import { changesOf, readWhole, typesOfColumns } from './native-views.js';
import { inSchema, insertJsonSql, ORD, quote, STAGE } from './sql.js';
import type { Change, Row } from './types.js';
import { type Row as NativeRow, ZSet } from './zset/zset.js';
import type { DecodeTable } from './workers/decode.js';

// The program's native tables (docs/engine.md, "Native tables"): a table every reader of which is a
// native view, materialized or not, of column types the native path holds, with no constraint but NOT
// NULL and a primary key. Its rows live in a NativeTable, never in PGlite: an ingest converts what
// it can in JS (native-input.ts) and sends only the other records through PostgreSQL's conversion
// (the staging table, read back at once), a step hands its delta straight to the native circuits.

interface Held {
  relation: Relation;
  types: SqlType[];
  read: RecordReader;
  /** The reader of a checkpoint's pages (numbers spelled as strings, native-input.ts). */
  readDumped: RecordReader;
  table: NativeTable;
  /** Its rows as a step's changes and a snapshot carry them, and as a checkpoint writes them. */
  json: RowMaker;
  sqlJson: RowMaker;
}

/** The shard threads, as the native tables keep rows on them (workers/kept.ts). */
export interface TableShards {
  kept(table: string): ShardRows;
  /** A step went through: the rows kept for it are held. */
  commit(): void;
}

export class NativeTables {
  private constructor(
    private readonly held: Map<string, Held>,
    private readonly spill: Spill | undefined,
    private readonly shards: TableShards | undefined,
  ) {}

  /**
   * Decides which tables are native; `readers` names the views that read a table and are not
   * native. Each table's way (and why not native) goes into its Relation's `maintenance`.
   */
  static async decide(
    db: Database,
    catalog: readonly Relation[],
    notNativeReaders: (table: string) => string[],
    how: {
      /** Why no table is native (the native path or incremental maintenance is off). */
      off?: string;
      shards?: TableShards;
      /** Where a table's full pages of rows appended go (traces/page-file.ts); in memory by default. */
      spill?: Spill;
    } = {},
  ): Promise<NativeTables> {
    const { off, shards, spill } = how;
    const pages = spill && spillPages(spill);
    const refused = await constrained(db);
    const held = new Map<string, Held>();
    for (const relation of catalog.filter((r) => r.kind === 'table')) {
      const others = notNativeReaders(relation.name);
      const reason =
        off ??
        columnsReason(relation) ??
        refused.get(relation.name) ??
        (others.length > 0 ? `read by ${others.join(', ')}, which the native path does not keep` : undefined);
      relation.maintenance = reason ? 'pglite' : 'native';
      relation.maintenanceReason = reason && `not native: ${reason}`;
      if (reason) continue;
      const types = typesOfColumns(relation);
      const key = relation.primaryKey.map((k) => relation.columns.findIndex((c) => c.name === k));
      const names = relation.columns.map((c) => c.name);
      held.set(relation.name, {
        relation,
        types,
        // Every column has a reader: columnsReason said so.
        read: tableReader(relation.columns, types)!,
        readDumped: tableReader(relation.columns, types, true)!,
        table: new NativeTable(types, key, shards?.kept(relation.name), pages),
        json: rowMaker(names, types, valueToJson),
        sqlJson: rowMaker(names, types, valueToSqlJson),
      });
    }
    return new NativeTables(held, spill, shards);
  }

  /** The engine closes (its shard threads ended): the tables' spill files are removed. */
  close(): void {
    for (const { table } of this.held.values()) table.close();
    removeSpillDir(this.spill);
  }

  has(table: string): boolean {
    return this.held.has(table);
  }

  get names(): string[] {
    return [...this.held.keys()];
  }

  /**
   * Buffers the records that fit for the next step, with the staging path's contract: each bad
   * record is reported with PostgreSQL's own message, the others go in, none goes in part way.
   * `dumped`: records as a checkpoint spells them (numerics and int8 as strings: see dump).
   */
  async ingest(db: Tx, name: string, changes: readonly Change[], dumped = false): Promise<Checked> {
    const { rows, errors } = await this.convert(db, name, changes, dumped);
    const { table } = this.held.get(name)!;
    let accepted = 0;
    rows.forEach((row, index) => {
      if (!row) return;
      table.buffer(row, changes[index]!.weight);
      accepted += 1;
    });
    return { accepted, errors };
  }

  /**
   * The table as a shard decodes a body's part for it (workers/decode.ts), and whether the shard
   * keeps the rows it decodes (workers/kept.ts); undefined when it is not native.
   */
  decodeTable(name: string): { table: DecodeTable; keep: boolean } | undefined {
    const held = this.held.get(name);
    return (
      held && {
        table: { name, columns: [...held.relation.columns], types: held.types },
        keep: held.table.keepsOnShards,
      }
    );
  }

  /** Rows converted already (a body's parts the shards decoded) buffered for the next step; how many. */
  bufferRows(name: string, parts: readonly ZSet[]): number {
    const { table } = this.held.get(name)!;
    let n = 0;
    for (const z of parts) for (let i = 0; i < z.rows.length; i++, n++) table.buffer(z.rows[i]!, z.weights[i]!);
    return n;
  }

  /**
   * A checkpoint's page of the table's rows, converted as an ingest converts them and put straight
   * into the table: PGlite's copy never holds them (its memory, once grown, stays grown). Throws on
   * the first row that does not convert, with PostgreSQL's message; nothing of the page goes in then.
   */
  async restorePage(db: Tx, name: string, rows: readonly JsonValue[]): Promise<number> {
    const changes = rows.map((row) => ({ weight: 1, row }) as Change);
    const converted = await this.convert(db, name, changes, true);
    const [first] = converted.errors;
    if (first) throw new Error(`row ${first.index + 1}: ${first.message}`);
    const z = new ZSet();
    for (const row of converted.rows) if (row) z.add(row, 1);
    this.held.get(name)!.table.load(z);
    return z.size;
  }

  /** Drops a table's rows (a bootstrap that leaves it empty). */
  clear(name: string): void {
    this.held.get(name)?.table.clear();
  }

  /** The table's rows, each with its number of copies. */
  whole(name: string): ZSet | undefined {
    return this.held.get(name)?.table.whole();
  }

  /** Each record's row in the table's types (undefined where it has an error), PostgreSQL's conversion where JS cannot decide. */
  private async convert(
    db: Tx,
    name: string,
    changes: readonly Change[],
    dumped = false,
  ): Promise<{ rows: (NativeRow | undefined)[]; errors: Checked['errors'] }> {
    const held = this.held.get(name)!;
    const { relation, types } = held;
    const read = dumped ? held.readDumped : held.read;
    const errors: Checked['errors'] = [];
    const rows: (NativeRow | undefined)[] = new Array(changes.length);
    const undecided: number[] = [];
    changes.forEach((change, index) => {
      const problem = shapeError(change);
      if (problem) errors.push({ index, message: problem });
      else {
        const row = read(change.row);
        if (row) rows[index] = row;
        else undecided.push(index);
      }
    });
    if (undecided.length > 0) {
      // PostgreSQL's conversion of those records: staged, read back in order, and gone again.
      const checked = await stage(
        db,
        relation,
        undecided.map((i) => changes[i]!),
      );
      const bad = new Set(checked.errors.map((e) => e.index));
      for (const e of checked.errors) errors.push({ index: undecided[e.index]!, message: e.message });
      const stageName = inSchema(STAGE, relation.name);
      const cols = relation.columns.map((c, i) => readSql(types[i]!, `s.${quote(c.name)}`));
      const [r] = (
        await db.query<{ j: string }>(
          `SELECT coalesce(json_agg(json_build_array(${cols.join(', ')}) ORDER BY s.${ORD}), '[]')::text AS j
             FROM ${stageName} s`,
        )
      ).rows;
      await db.exec(`TRUNCATE ${stageName}`);
      const converted = parseExact(r?.j ?? '[]') as unknown[][];
      let next = 0;
      undecided.forEach((index, i) => {
        if (!bad.has(i)) rows[index] = types.map((t, c) => valueFromJson(t, converted[next]![c] ?? null)) as never;
        if (!bad.has(i)) next += 1;
      });
      errors.sort((a, b) => a.index - b.index);
    }
    return { rows, errors };
  }

  /**
   * Each changed table's delta, read only, and the tables part of whose delta the shards keep
   * (workers/kept.ts); a table in `whole` has its delta here in full (a watched table's changes are
   * reported). `commit` applies them all (once the step went through).
   */
  prepare(whole: (table: string) => boolean): {
    deltas: Map<string, ZSet>;
    onShards: Set<string>;
    commit: () => void;
  } {
    const prepared: Prepared[] = [];
    const deltas = new Map<string, ZSet>();
    const onShards = new Set<string>();
    for (const [name, { table }] of this.held) {
      if (table.buffered === 0) continue;
      if (whole(name)) table.takeBack(false);
      const p = table.prepare();
      prepared.push(p);
      if (p.delta.size > 0 || p.onShards) deltas.set(name, p.delta);
      if (p.onShards) onShards.add(name);
    }
    const commit = () => {
      prepared.forEach((p) => p.commit());
      if (onShards.size > 0) this.shards?.commit();
    };
    return { deltas, onShards, commit };
  }

  count(name: string): number | undefined {
    return this.held.get(name)?.table.count();
  }

  /** A delta of the table as a step reports it. */
  changes(name: string, delta: ZSet): Change[] {
    return changesOf(this.held.get(name)!.json, delta);
  }

  /** The table's rows, a copy each, as a snapshot gives them: read as they are reached (no step may run meanwhile). */
  *snapshot(name: string): Generator<Row> {
    const { json, table } = this.held.get(name)!;
    for (const [row, n] of table.entries()) for (let k = 0; k < n; k++) yield json(row);
  }

  /**
   * The tables' pages of a checkpoint, as dump.ts writes PGlite's (values as PostgreSQL's input
   * reads them back: int8, numeric and float8 as strings): the rows, or the buffered input.
   */
  async dump(section: 'table' | 'staged', emit: (page: DumpedPage) => Promise<void>, rows: number): Promise<void> {
    await writePages(this.held, section, emit, rows);
  }

  /**
   * Puts the native tables' rows (those `only` picks) into PGlite's copies, for a query that reads
   * them or evaluates a view over them (a snapshot of a view kept without state); the caller rolls
   * it back.
   */
  async fill(db: Tx, only: (table: string) => boolean = () => true): Promise<void> {
    const tables = [...this.held].filter(([name]) => only(name));
    const insert = async (page: DumpedPage) => {
      await db.query(insertJsonSql(`public.${quote(page.name)}`), [page.json]);
    };
    await writePages(tables, 'table', insert, 10_000);
  }

  /**
   * Moves the rows PGlite holds in a native table's place (the program's own inserts at load, which
   * went in through PostgreSQL's conversion) into the native table.
   */
  async adopt(tx: Tx): Promise<void> {
    for (const [name, { relation, table }] of this.held) {
      const target = `public.${quote(name)}`;
      table.load(await readWhole(tx, relation, target));
      await tx.exec(`TRUNCATE ${target}`);
    }
  }
}
