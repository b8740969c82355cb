import type { JsonValue } from '../../model/json.js';
import type { Spill } from '../traces/page-file.js';
import type { OperatorProfile } from '../operators/profile.js';
import type { DecodeTable } from './decode.js';
import { transfers, type WireError, type WireZSet } from './wire.js';

// The requests of the engine's thread to a shard worker, and the replies. The engine's thread waits
// for each reply synchronously (a step of the views is synchronous), so requests are few per step:
// one per view evaluated, with the deltas of its inputs, each relation's part sent once per step.

export type Columns = { name: string; type: string }[];

export type Request =
  /** Plans view `id` from its canonical text, with the columns of the relations it reads. */
  | { kind: 'plan'; id: number; def: string; columns: Columns; catalog: [string, Columns][]; timed: boolean }
  /**
   * Runs view `id`'s circuit for step `step`; `inputs`: the relations' parts not sent yet this step;
   * `kept`: tables whose rows kept on the shards (kept.ts) are part of this step's delta too.
   */
  | { kind: 'step'; id: number; step: number; inputs: [string, WireZSet][]; kept: string[] }
  | { kind: 'reset'; id: number }
  /**
   * The next `limit` entries of view `id`'s circuit state (operators/circuit-state.ts), for a
   * checkpoint; `first` starts from its beginning (a checkpoint that failed part way left a save open).
   */
  | { kind: 'save'; id: number; limit: number; first: boolean }
  /** Entries of view `id`'s circuit state taken back, after a reset. */
  | { kind: 'load'; id: number; entries: unknown[] }
  /** This shard's profile of view `id`'s circuit (operators/profile.ts). */
  | { kind: 'profile'; id: number }
  /**
   * A part of an ingress body for native table `table`, decoded and converted (decode.ts); `keep`:
   * a part of inserts only stays on the shard as the table's input for the next step (kept.ts).
   */
  | { kind: 'decode'; table: DecodeTable; text: string; format: unknown; keep: boolean }
  /** The step went through: the rows kept for it join the rows the shard holds of their tables. */
  | { kind: 'commit' }
  /** The next `limit` rows of `table` kept on the shard: held, or kept for the next step (`pending`). */
  | { kind: 'rows'; table: string; pending: boolean; first: boolean; limit: number }
  /** Forgets the rows of `table` held on the shard (`held`), those kept for the next step (`pending`), or both. */
  | { kind: 'drop'; table: string; held: boolean; pending: boolean }
  /** Gives up the last `rows` rows kept of `table` (another part of their body is decoded whole). */
  | { kind: 'unkeep'; table: string; rows: number };

/**
 * A decoded part as it crosses: its rows and their weights as a Z-set, or how many rows (and
 * copies: the sum of their weights) the shard kept (absent: decode the whole body).
 */
export interface WireDecoded {
  z?: WireZSet;
  kept?: { rows: number; copies: number };
  records: number;
  indexes: number[];
}

export type Reply =
  | {
      ok: true;
      out?: WireZSet;
      saved?: { entries: JsonValue[]; done: boolean };
      profile?: OperatorProfile[];
      decoded?: WireDecoded;
      rows?: { z: WireZSet; done: boolean };
    }
  | { ok: false; error: WireError; aborted: boolean };

/** The buffers a reply transfers rather than copies. */
export const replyTransfers = (reply: Reply): ArrayBuffer[] =>
  reply.ok ? transfers([reply.out, reply.decoded?.z, reply.rows?.z]) : [];

/**
 * Signal slots after the shards' own (one per shard, messages sent to it): the aborted step, replies,
 * and the first shard whose thread ended (its index + 1; 0 while every shard lives).
 */
export const abortSlot = (count: number): number => count;
export const replySlot = (count: number): number => count + 1;
export const exitSlot = (count: number): number => count + 2;
export const signalSlots = (count: number): number => count + 3;

/** What a shard worker posts once it says its end in the signal (before, only its 'exit' event can). */
export const READY = 'shard ready';

/** A shard's thread ended (an exception outside a request, a failed start): no reply will come. */
export class ShardExited extends Error {
  constructor(
    readonly shard: number,
    options?: { cause?: unknown },
  ) {
    super(`shard ${shard} of the native engine's worker threads has ended`, options);
  }
}

/** Throws ShardExited once any shard's thread has ended (read by whoever waits for one). */
export function throwIfShardExited(signal: Int32Array, count: number): false {
  const ended = Atomics.load(signal, exitSlot(count));
  if (ended !== 0) throw new ShardExited(ended - 1);
  return false;
}

export interface ShardWorkerData {
  index: number;
  count: number;
  signal: SharedArrayBuffer;
  /** The wire formats' module (host/hosted.ts EngineCodec), for the parts of bodies it decodes. */
  codec?: string;
  /** Where its tables' kept rows spill (EngineOptions.spill). */
  spill?: Spill;
}
