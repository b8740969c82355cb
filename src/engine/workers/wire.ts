import { SqlError } from '../expressions/sql-error.js';
import { type PackedRows, RowStore } from '../zset/row-store.js';
import type { Row } from '../zset/zset.js';
import { ZSet } from '../zset/zset.js';

// What crosses between the engine's thread and its shard workers (structured clone): a Z-set as
// its rows packed by column (row-store.ts: typed arrays, transferred) and its weights, or as its two
// arrays when it stays on its thread (shard 0 is the engine's); and an error as its SQLSTATE and
// message (so a step failing on a shard reads exactly as one failing on one thread).

export type WireZSet = { rows: Row[]; weights: number[] } | { packed: PackedRows; weights: Float64Array };
export interface WireError {
  code?: string;
  message: string;
}

/** A Z-set staying on its thread: its arrays as they are. */
export const toWire = (z: ZSet): WireZSet => ({ rows: z.rows, weights: z.weights });

/** A Z-set to post to another thread: packed by column (post it with `transfers`). */
export const packed = (z: { rows: readonly Row[]; weights: readonly number[] }): WireZSet => ({
  packed: RowStore.pack(z.rows),
  weights: Float64Array.from(z.weights),
});

/** The buffers of the packed Z-sets among `wires`, to transfer rather than copy. */
export const transfers = (wires: readonly (WireZSet | undefined)[]): ArrayBuffer[] =>
  wires.flatMap((w) => (w && 'packed' in w ? [...RowStore.transfers(w.packed), w.weights.buffer as ArrayBuffer] : []));

/** The Z-set a wire form carries, its rows added to `into` (a new one by default: no copy in between). */
export function fromWire(w: WireZSet | undefined, into = new ZSet()): ZSet {
  if (!w) return into;
  const rows = 'packed' in w ? RowStore.unpack(w.packed) : w.rows;
  for (let i = 0; i < rows.length; i++) into.add(rows[i]!, w.weights[i]!);
  return into;
}

export const errorToWire = (error: unknown): WireError =>
  error instanceof SqlError ? { code: error.code, message: error.message } : { message: String(error) };

export const errorFromWire = (e: WireError): Error => (e.code ? new SqlError(e.code, e.message) : new Error(e.message));

/** Waits on `signal[at]` until `ready` gives a value (woken by the sender's notify; rechecked each second). */
export function waitFor<T>(signal: Int32Array, at: number, ready: () => T | undefined, aborted?: () => boolean): T {
  for (;;) {
    const seen = Atomics.load(signal, at);
    const got = ready();
    if (got !== undefined) return got;
    if (aborted?.()) throw new Aborted();
    Atomics.wait(signal, at, seen, 1000);
  }
}

export const notify = (signal: Int32Array, at: number): void => {
  Atomics.add(signal, at, 1);
  Atomics.notify(signal, at);
};

/** A shard's step ended because another shard failed it (that one's error is the step's). */
export class Aborted extends Error {
  constructor() {
    super('aborted: another shard failed the step');
  }
}
