import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Operator, StepInput } from '../operators/operator.js';
import { type Row, ZSet } from '../zset/zset.js';
import { abortSlot, throwIfShardExited } from './protocol.js';
import { fromWire, notify, packed, transfers, waitFor, type WireZSet } from './wire.js';

// The exchange between shards (DBSP): before a stateful operator, each shard sends every row to the
// shard that owns its key (hash modulo the number of shards) and takes in what the others send it,
// so that each shard's join, aggregate or DISTINCT holds all the rows of its keys. Every shard runs
// the same circuit and so the same exchanges in the same order; a step is a barrier at each of them.

export interface Shards {
  readonly index: number;
  readonly count: number;
  /** Sends part k to shard k and returns what every shard sent this one (its own part first). */
  exchange(parts: ZSet[]): ZSet;
}

/** The shard a row goes to: its key's hash (any 32 bits); null keeps it where it is (a NULL join key matches nothing). */
export type Route = (row: Row) => number | null;

export class Exchange implements Operator {
  constructor(
    private readonly input: Operator,
    /** The shard of a row (read by partition.ts, which splits inputs the same way). */
    readonly route: Route,
    private readonly shards: Shards,
  ) {}
  step(input: StepInput): ZSet {
    const n = this.shards.count;
    const parts = Array.from({ length: n }, () => new ZSet());
    const { rows, weights } = this.input.step(input);
    for (let i = 0; i < rows.length; i++) {
      const h = this.route(rows[i]!);
      parts[h === null ? this.shards.index : (h >>> 0) % n]!.add(rows[i]!, weights[i]!);
    }
    return this.shards.exchange(parts);
  }
  reset(): void {
    this.input.reset();
  }
  sources(): readonly Operator[] {
    return [this.input];
  }
}

/** A shard's side of the exchange in a worker thread: a port to every other shard, one shared signal. */
export class ThreadShards implements Shards {
  /** The step running now (messages of an aborted earlier step are dropped). */
  step = 0;
  constructor(
    readonly index: number,
    readonly count: number,
    private readonly ports: (MessagePort | undefined)[],
    private readonly signal: Int32Array,
  ) {}

  exchange(parts: ZSet[]): ZSet {
    for (let k = 0; k < this.count; k++) {
      if (k === this.index) continue;
      const part = packed(parts[k]!);
      this.ports[k]!.postMessage({ step: this.step, part }, transfers([part]));
      notify(this.signal, k);
    }
    const out = parts[this.index]!;
    for (let k = 0; k < this.count; k++) if (k !== this.index) fromWire(this.receive(k), out);
    return out;
  }

  /** The next part shard k sent in this step. */
  private receive(k: number): WireZSet {
    const port = this.ports[k]!;
    return waitFor(
      this.signal,
      this.index,
      () => {
        for (;;) {
          const m = receiveMessageOnPort(port)?.message as { step: number; part: WireZSet } | undefined;
          if (!m || m.step === this.step) return m?.part;
        }
      },
      // A peer that ended will not send its part: fail the step rather than wait for it forever.
      () =>
        Atomics.load(this.signal, abortSlot(this.count)) === this.step || throwIfShardExited(this.signal, this.count),
    );
  }
}
