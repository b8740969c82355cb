import { type PackedRows, RowStore } from '../zset/row-store.js';
import type { Row } from '../zset/zset.js';

// A table's rows as they were inserted, with their weights (a multiset never deleted from:
// native-table.ts). Nothing looks one of them up: they are read back only whole and in order (a
// checkpoint, a snapshot of the table, the table's first delete, the views evaluated again). So
// once a page of them is full it is sealed, packed by column to its exact size, and handed to a
// PageStore: kept in memory, or written to a spill file (page-file.ts), so that a table fed by a
// stream does not hold every row it ever had in the process's memory. Measured on bench:engine's
// orders (1,000,000 rows of bigint, int, numeric(10,2), text), a row held here before sealing cost
// ~60 bytes of RSS: a weight in a JS array beside it, its text as a pointer in another, its columns
// with the doubling's slack.

/** Rows a page holds (the open page grows by doubling up to it). */
export const PAGE_ROWS = 16_384;

/** A sealed page: its rows by column, and their weights when one is not 1. */
export interface Page {
  rows: PackedRows;
  weights: Float64Array | undefined;
}

/** Where sealed pages go; `put` gives back a function that reads its page again. */
export interface PageStore {
  put(page: Page): () => Page;
  /** Forgets every page (a spill file is removed). */
  close(): void;
}

/** Pages kept as they are, in memory (an engine given no spill directory). */
export const memoryPages = (): PageStore => ({ put: (page) => () => page, close: () => undefined });

export class RowLog {
  private open = new RowStore();
  /** The open page's weights, made at the first that is not 1 (a stream's rows all have 1). */
  private openWeights: number[] | undefined;
  private readonly sealed: (() => Page)[] = [];
  private store: PageStore | undefined;
  private count = 0;

  /** `pages`: makes the store of this log's sealed pages, at the first one. */
  constructor(private readonly pages: () => PageStore = memoryPages) {}

  /** Rows appended (a row appended twice counts twice). */
  get size(): number {
    return this.count;
  }

  add(row: Row, weight: number): void {
    if (weight !== 1 && !this.openWeights) this.openWeights = new Array<number>(this.open.size).fill(1);
    this.open.add(row);
    this.openWeights?.push(weight);
    this.count += 1;
    if (this.open.size === PAGE_ROWS) this.seal();
  }

  private seal(): void {
    const page = { rows: this.open.seal(), weights: this.openWeights && Float64Array.from(this.openWeights) };
    this.store ??= this.pages();
    this.sealed.push(this.store.put(page));
    this.open = new RowStore();
    this.openWeights = undefined;
  }

  /** Every row in the order appended, with its weight; a sealed page is read back as it is reached. */
  *entries(): Generator<[Row, number]> {
    for (const read of this.sealed) {
      const { rows, weights } = read();
      const list = RowStore.unpack(rows);
      for (let i = 0; i < list.length; i++) yield [list[i]!, weights ? weights[i]! : 1];
    }
    const open = this.open;
    const weights = this.openWeights;
    for (let id = 0; id < open.size; id++) yield [open.row(id), weights ? weights[id]! : 1];
  }

  clear(): void {
    this.open = new RowStore();
    this.openWeights = undefined;
    this.sealed.length = 0;
    this.store?.close();
    this.store = undefined;
    this.count = 0;
  }
}
