import { SqlError } from '../expressions/sql-error.js';
import type { Row } from '../zset/zset.js';
import { ZSet } from '../zset/zset.js';

// What crosses between the engine's thread and its shard workers (structured clone): a Z-set as its
// two arrays, and an error as its SQLSTATE and message (so a step failing on a shard reads exactly
// as one failing on one thread).

export interface WireZSet {
  rows: Row[];
  weights: number[];
}
export interface WireError {
  code?: string;
  message: string;
}

export const toWire = (z: ZSet): WireZSet => ({ rows: z.rows, weights: z.weights });

export function fromWire(w: WireZSet | undefined): ZSet {
  const z = new ZSet();
  if (w) for (let i = 0; i < w.rows.length; i++) z.add(w.rows[i]!, w.weights[i]!);
  return z;
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
