import type { ShardRows } from '../native-table.js';
import type { Row } from '../zset/zset.js';
import type { Reply, Request } from './protocol.js';
import { fromWire } from './wire.js';

// A native table's rows kept on the shards (kept.ts), as the engine's thread sees them: how many
// there are (counted here, so that asking costs no message), and the rows themselves read back a
// page at a time when something needs every row (a checkpoint, a snapshot, a delete).

/** Rows a page of a read back carries. */
const PAGE_ROWS = 10_000;

/** A request about one table, the table left out (each KeptRows asks about its own). */
export type TableRequest<R = Extract<Request, { kind: 'rows' | 'drop' }>> = R extends unknown
  ? Omit<R, 'table'>
  : never;

export class KeptRows implements ShardRows {
  /** Rows kept for the next step, and rows held from the steps before (over every shard). */
  pending = 0;
  held = 0;

  constructor(
    private readonly shards: number,
    /** One request to shard k about this table, and its reply (an error thrown). */
    private readonly ask: (shard: number, request: TableRequest) => Reply,
  ) {}

  /** The step went through: the rows kept for it are held now. */
  committed(): void {
    this.held += this.pending;
    this.pending = 0;
  }

  *rows(pending: boolean): Generator<[Row, number]> {
    for (let k = 0; k < this.shards; k++)
      for (let first = true; ; first = false) {
        const reply = this.ask(k, { kind: 'rows', pending, first, limit: PAGE_ROWS });
        const page = reply.ok ? reply.rows : undefined;
        const z = fromWire(page?.z);
        for (let i = 0; i < z.rows.length; i++) yield [z.rows[i]!, z.weights[i]!];
        if (!page || page.done) break;
      }
  }

  drop(pending: boolean): void {
    for (let k = 0; k < this.shards; k++) this.ask(k, { kind: 'drop', pending });
    this.held = 0;
    if (pending) this.pending = 0;
  }
}
