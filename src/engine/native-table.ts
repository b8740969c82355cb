import { equalityKey, equalityValue } from './expressions/values.js';
import type { SqlType } from './expressions/types.js';
import { sameRow } from './zset/row-hash.js';
import { RowMap } from './zset/row-map.js';
import { RowStore } from './zset/row-store.js';
import { type PageStore, RowLog } from './traces/row-log.js';
import { type Row, ZSet } from './zset/zset.js';

// One native table's rows and the input buffered for its next step, with docs/engine.md's "Input"
// semantics: with a primary key, an upsert table (the last change of a key in a step wins; an insert
// replaces the row of its key, a delete removes it whatever its other values); without one, a
// multiset (each distinct row's weights summed over the step; a negative sum deletes up to that many
// copies that exist). A row's identity is its values as PostgreSQL prints them (sameRow), which is
// what the PGlite path's multiset delete matches by (the row's text). A step is prepared without
// changing anything and committed only once the step as a whole went through. Rows are held by
// column (row-store.ts); a keyed table finds a row's id by its key's values in one spelling per
// SQL-equal value (equalityValue), so that RowMap's identity is the key's equality.
// With shard threads, a multiset never deleted from may have rows kept on the shards that decoded
// them (workers/kept.ts): they count and read back as its own, and a delete takes them back first.

export interface Prepared {
  delta: ZSet;
  /** Rows kept on the shards are part of the delta too (the circuits' shards read them there). */
  onShards: boolean;
  commit: () => void;
}

/** A table's rows kept on the shard threads (workers/kept-rows.ts). */
export interface ShardRows {
  /** Rows kept for the next step, and copies of rows held from the steps before. */
  readonly pending: number;
  readonly held: number;
  /** The rows held (or, `pending`, kept for the next step) with their weights, read back. */
  rows(pending: boolean): Generator<[Row, number]>;
  /** Forgets the rows held, those kept for the next step, or both. */
  drop(which: { held: boolean; pending: boolean }): void;
}

export class NativeTable {
  private pending: { row: Row; weight: number }[] = [];
  /** Keyed: the id in `keyed` of each key's row (by SQL equality of the key's values). */
  private readonly byKey = new RowMap<number>();
  private readonly keyed = new RowStore();
  /**
   * Multiset, until its first delete: the rows as inserted, in order, with their weights, and no
   * index. Most tables without a key only grow (events, orders), and a delete is all the index is
   * for; hashing every row into it was an eighth of bench:engine's time. Nothing reads them but
   * whole, so full pages of them are sealed, and spilled to disk where the engine has a directory.
   */
  private readonly appended: RowLog;
  /** Multiset, from its first delete on: the rows with their number of copies. */
  private readonly copies = new RowMap<number>();
  private indexed = false;
  private size = 0;

  constructor(
    private readonly types: readonly SqlType[],
    /** Column positions of the primary key; empty: a multiset. */
    private readonly key: readonly number[],
    /** Its rows kept on the shard threads, where there are some. */
    private readonly shards?: ShardRows,
    /** Where the pages of rows appended go once full (traces/row-log.ts): in memory by default. */
    pages?: () => PageStore,
  ) {
    this.appended = new RowLog(pages);
  }

  /** The key's values, made SQL-equal exactly when identical (the keyed table's RowMap key). */
  private keyRow(row: Row): Row {
    return this.key.map((k) => equalityValue(this.types[k]!.base, row[k]!));
  }

  /** The key's text (a Map key for the rows of one step). */
  private keyOf(row: Row): string {
    if (this.key.length === 1) return equalityKey(this.types[this.key[0]!]!.base, row[this.key[0]!]!);
    return JSON.stringify(this.key.map((k) => equalityKey(this.types[k]!.base, row[k]!)));
  }

  get buffered(): number {
    return this.pending.length + (this.shards?.pending ?? 0);
  }

  buffer(row: Row, weight: number): void {
    this.pending.push({ row, weight });
  }

  /** Gives up the last `n` changes buffered (workers/kept.ts: a body decoded whole after all). */
  unbuffer(n: number): void {
    this.pending.length -= Math.min(n, this.pending.length);
  }

  /** Whether a shard may keep the rows it decodes for it: a multiset never deleted from, with shards. */
  get keepsOnShards(): boolean {
    return this.shards !== undefined && this.key.length === 0 && !this.indexed;
  }

  /** The input buffered for the next step (here in arrival order, then the shards'). */
  *bufferedChanges(): Generator<{ row: Row; weight: number }> {
    yield* this.pending;
    if (this.shards?.pending) for (const [row, weight] of this.shards.rows(true)) yield { row, weight };
  }

  /** Rows held now. */
  count(): number {
    return this.key.length > 0 ? this.byKey.size : this.size + (this.shards?.held ?? 0);
  }

  /**
   * Takes back the rows the shards keep of it for the next step (a watched table's changes are
   * reported from here), and with `held` those they hold too (a delete needs every row here).
   */
  takeBack(held: boolean): void {
    const shards = this.shards;
    if (!shards || (held ? shards.held : 0) + shards.pending === 0) return;
    if (held) for (const [row, n] of shards.rows(false)) this.apply(row, n);
    for (const [row, weight] of shards.rows(true)) this.pending.push({ row, weight });
    shards.drop({ held, pending: true });
  }

  /** Every row, each with its number of copies. */
  whole(): ZSet {
    const z = new ZSet();
    for (const [row, n] of this.entries()) z.add(row, n);
    return z;
  }

  /** Every row (read back as it is reached) with its number of copies. */
  *entries(): Generator<[Row, number]> {
    if (this.key.length > 0) for (const id of this.byKey.allValues()) yield [this.keyed.row(id), 1];
    else if (!this.indexed) {
      // Not consolidated: a row inserted twice comes twice, a copy each (a Z-set all the same).
      yield* this.appended.entries();
      if (this.shards?.held) yield* this.shards.rows(false);
    } else yield* this.copies.entries();
  }

  /** Drops every row (they went back into PGlite's copy, native-tables.ts). */
  clear(): void {
    if (this.shards?.held) this.shards.drop({ held: true, pending: false });
    this.byKey.clear();
    this.keyed.clear();
    this.copies.clear();
    this.appended.clear();
    this.indexed = false;
    this.size = 0;
  }

  /** The engine closes: a spill file of its rows is removed. */
  close(): void {
    this.appended.clear();
  }

  /** The multiset's index, built at its first delete from the rows appended so far. */
  private index(): void {
    if (this.indexed) return;
    this.takeBack(true);
    for (const [row, weight] of this.appended.entries()) this.copies.addTo(row, weight);
    this.appended.clear();
    this.indexed = true;
  }

  /** Rows put in directly (a restore, the program's own inserts at load): as inserts applied now. */
  load(rows: ZSet): void {
    for (let i = 0; i < rows.size; i++) this.apply(rows.rows[i]!, rows.weights[i]!);
  }

  private apply(row: Row, weight: number): void {
    if (this.key.length > 0) {
      // One probe: the key's new row id goes in, and the old row's id comes back to be freed.
      const old = this.byKey.set(this.keyRow(row), weight > 0 ? this.keyed.add(row) : undefined);
      if (old !== undefined) this.keyed.release(old);
      return;
    }
    this.size += weight;
    if (!this.indexed && weight > 0) {
      this.appended.add(row, weight);
      return;
    }
    // A delete takes only copies that exist (prepare made it so): the count never goes below 0.
    this.index();
    this.copies.addTo(row, weight);
  }

  /** The change the buffered input makes (read only); `commit` makes it and empties the buffer. */
  prepare(): Prepared {
    if (this.key.length > 0) return this.prepared(...this.upserts());
    if (!this.indexed && this.pending.every((c) => c.weight >= 0)) {
      // The rows kept on the shards are inserts too (kept.ts keeps no other): they stay there.
      // Inserts only, into a table never deleted from: the delta is the input as it came (a Z-set
      // not consolidated; whatever needs identity downstream consolidates), and no row is hashed.
      const rows: Row[] = [];
      const weights: number[] = [];
      for (const { row, weight } of this.pending)
        if (weight > 0) {
          rows.push(row);
          weights.push(weight);
        }
      const onShards = (this.shards?.pending ?? 0) > 0;
      return { delta: new ZSet(rows, weights), onShards, commit: () => this.commit(rows, weights) };
    }
    return this.prepared(...this.summed());
  }

  // Rows and weights of the change, each row once (a key's old and new rows are different rows,
  // or skipped when equal), so that the delta needs no consolidation of its own.
  private prepared(rows: Row[], weights: number[]): Prepared {
    return { delta: ZSet.distinct(rows, weights), onShards: false, commit: () => this.commit(rows, weights) };
  }

  /** A keyed table's change: the last change of each key wins. */
  private upserts(): [Row[], number[]] {
    const rows: Row[] = [];
    const weights: number[] = [];
    const last = new Map<string, { row: Row; weight: number }>();
    for (const change of this.pending) last.set(this.keyOf(change.row), change);
    for (const { row, weight } of last.values()) {
      const id = this.byKey.get(this.keyRow(row));
      const old = id === undefined ? undefined : this.keyed.row(id);
      if (old && weight > 0 && sameRow(old, row)) continue;
      if (old) {
        rows.push(old);
        weights.push(-1);
      }
      if (weight > 0) {
        rows.push(row);
        weights.push(1);
      }
    }
    return [rows, weights];
  }

  /** A multiset's change with deletes: each row's weights summed; a delete takes only copies that exist. */
  private summed(): [Row[], number[]] {
    // The copies that exist are read, so the index is built now (the same rows either way).
    this.index();
    const rows: Row[] = [];
    const weights: number[] = [];
    const summed = new ZSet();
    for (const { row, weight } of this.pending) summed.add(row, weight);
    const sums = summed.consolidate();
    for (let i = 0; i < sums.size; i++) {
      const row = sums.rows[i]!;
      const weight = sums.weights[i]!;
      const w = weight > 0 ? weight : -Math.min(-weight, this.copies.get(row) ?? 0);
      if (w === 0) continue;
      rows.push(row);
      weights.push(w);
    }
    return [rows, weights];
  }

  private commit(rows: readonly Row[], weights: readonly number[]): void {
    for (let i = 0; i < rows.length; i++) this.apply(rows[i]!, weights[i]!);
    this.pending = [];
  }
}
