import { NativeTable, type Prepared } from '../native-table.js';
import type { PageStore } from '../traces/row-log.js';
import { type Row, ZSet } from '../zset/zset.js';
import type { DecodeTable } from './decode.js';
import type { Route, Shards } from './exchange.js';
import { Cursors } from './pages.js';
import { splitDelta } from './partition.js';

// A native table's rows kept on the shard that decoded them (docs/engine.md, "Threads"):
// a table without a primary key that was never deleted from only grows, and a step's delta of it
// is the rows inserted, whichever thread holds them. So the parts of an ingress body that shards
// decode for it stay where they were decoded: at the step each shard sends its part once to the
// shards that own the rows' keys (the exchange its circuits would make), and once the step went
// through the shard holds the rows. The engine's thread never unpacks, stores or packs them again.
// What needs every row in one place (a checkpoint, a snapshot, a delete by value) reads them back,
// and a watched table's changes take the step's rows back (native-table.ts).

export class KeptTables {
  constructor(private readonly pages?: () => PageStore) {}

  private readonly tables = new Map<string, NativeTable>();
  /** The step's change of each table read in it, made once: the commit applies the same. */
  private readonly prepared = new Map<string, Prepared>();
  /** The tables whose rows a checkpoint or a take-back is reading, where it is in each. */
  private readonly reading = new Cursors<string, [Row, number]>();

  /** Keeps a decoded part of inserts for the next step. */
  keep(table: DecodeTable, rows: readonly Row[], weights: readonly number[]): void {
    let kept = this.tables.get(table.name);
    if (!kept) this.tables.set(table.name, (kept = new NativeTable(table.types, [], undefined, this.pages)));
    for (let i = 0; i < rows.length; i++) kept.buffer(rows[i]!, weights[i]!);
    this.prepared.delete(table.name);
  }

  /**
   * This shard's part of the step's delta of `name`: the rows every shard kept of it, each sent to
   * the shard its circuits' exchanges would send it to (`route`), or as kept when none takes the
   * table as it is. Every shard calls this for the same tables in the same order (an exchange).
   * Read only: as kept, it is the list of rows the commit appends.
   */
  delta(name: string, route: Route | undefined, shards: Shards): ZSet {
    const own = this.prepare(name)?.delta ?? new ZSet();
    if (!route) return own;
    return shards.exchange(splitDelta(own, shards.count, route).map((p) => new ZSet(p.rows, p.weights)));
  }

  /** The change a table's kept rows make, as this step prepared it (undefined: none kept). */
  private prepare(name: string): Prepared | undefined {
    let prepared = this.prepared.get(name);
    const kept = this.tables.get(name);
    if (!prepared && kept && kept.buffered > 0) this.prepared.set(name, (prepared = kept.prepare()));
    return prepared;
  }

  /** The step went through: the kept rows join the rows held (a table no view read this step too). */
  commit(): void {
    for (const name of this.tables.keys()) this.prepare(name)?.commit();
    this.prepared.clear();
  }

  /** The next `limit` rows of a table (held, or kept for the next step), with their weights. */
  rows(name: string, pending: boolean, first: boolean, limit: number): { z: ZSet; done: boolean } {
    const start = () => this.entries(name, pending);
    const { items, done } = this.reading.page(`${pending ? 'pending' : 'held'} ${name}`, first, limit, start);
    return {
      z: new ZSet(
        items.map(([row]) => row),
        items.map(([, n]) => n),
      ),
      done,
    };
  }

  private *entries(name: string, pending: boolean): Generator<[Row, number]> {
    const kept = this.tables.get(name);
    if (!kept) return;
    if (!pending) yield* kept.entries();
    else for (const { row, weight } of kept.bufferedChanges()) yield [row, weight];
  }

  /** Gives up the last `rows` rows kept of a table for the next step. */
  unkeep(name: string, rows: number): void {
    this.tables.get(name)?.unbuffer(rows);
    this.prepared.delete(name);
  }

  /** Forgets the rows held of a table, those kept for the next step, or both. */
  drop(name: string, { held, pending }: { held: boolean; pending: boolean }): void {
    const kept = this.tables.get(name);
    if (held) kept?.clear();
    if (pending) kept?.unbuffer(kept.buffered);
    this.prepared.delete(name);
  }
}
