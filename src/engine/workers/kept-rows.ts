import type { ShardRows } from '../native-table.js';
import type { Row, ZSet } from '../zset/zset.js';
import type { Reply, Request } from './protocol.js';
import { pages } from './pages.js';
import { fromWire } from './wire.js';

// A native table's rows kept on the shards (kept.ts), as the engine's thread sees them: how many
// there are (counted here, so that asking costs no message), and the rows themselves read back a
// page at a time when something needs every row (a checkpoint, a snapshot, a delete).

/** Rows a page of a read back carries. */
const PAGE_ROWS = 10_000;

/** A request about one table's kept rows. */
type TableRequest = Extract<Request, { kind: 'rows' | 'drop' }>;

/** A Z-set's rows with their weights, as they are (no array of pairs made first). */
function* pairs(z: ZSet): Generator<[Row, number]> {
  for (let i = 0; i < z.rows.length; i++) yield [z.rows[i]!, z.weights[i]!];
}

export class KeptRows implements ShardRows {
  /** Rows kept for the next step (over every shard), and their copies (the sum of their weights). */
  pending = 0;
  private pendingCopies = 0;
  /** Copies held from the steps before, over every shard (as a table counts its rows). */
  held = 0;

  constructor(
    private readonly table: string,
    private readonly shards: number,
    /** One request to shard k about this table, and its reply (an error thrown). */
    private readonly ask: (shard: number, request: TableRequest) => Reply,
  ) {}

  /** A body's parts kept on the shards. */
  kept({ rows, copies }: { rows: number; copies: number }): void {
    this.pending += rows;
    this.pendingCopies += copies;
  }

  /** The step went through: the rows kept for it are held now. */
  committed(): void {
    this.held += this.pendingCopies;
    this.pending = 0;
    this.pendingCopies = 0;
  }

  *rows(pending: boolean): Generator<[Row, number]> {
    for (let k = 0; k < this.shards; k++)
      yield* pages((first) => {
        const reply = this.ask(k, { kind: 'rows', table: this.table, pending, first, limit: PAGE_ROWS });
        const page = reply.ok ? reply.rows : undefined;
        if (!page) return undefined;
        return { items: pairs(fromWire(page.z)), done: page.done };
      });
  }

  drop(which: { held: boolean; pending: boolean }): void {
    for (let k = 0; k < this.shards; k++) this.ask(k, { kind: 'drop', table: this.table, ...which });
    if (which.held) this.held = 0;
    if (which.pending) this.pending = this.pendingCopies = 0;
  }
}
