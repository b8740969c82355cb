import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { JsonValue } from '../../model/json.js';
import type { StepInput } from '../operators/operator.js';
import { type OperatorProfile, sumProfiles } from '../operators/profile.js';
import type { Catalog } from '../planner/from.js';
import { planView, type ViewPlan } from '../planner/plan.js';
import { ZSet } from '../zset/zset.js';
import {
  type Columns,
  type Reply,
  type Request,
  replySlot,
  type ShardWorkerData,
  signalSlots,
  type WireDecoded,
  throwIfShardExited,
} from './protocol.js';
import type { EngineCodec } from '../host/hosted.js';
import { type DecodeTable, PartDecoder } from './decode.js';
import { type Route, ThreadShards } from './exchange.js';
import { KeptRows } from './kept-rows.js';
import { type LaunchShard, launchShard, ready } from './launch.js';
import { ShardedRoot } from './sharded-root.js';
import { pages } from './pages.js';
import { splitDelta } from './partition.js';
import { Shard } from './shard.js';
import { type Spill, spillPages } from '../traces/page-file.js';
import { errorFromWire, fromWire, packed, toWire, transfers, waitFor, type WireZSet } from './wire.js';

// The native views on `workers` threads (ENGINE.md "Threads"): each thread owns a shard (hash of
// the key) of every stateful operator, rows are exchanged by key between stages (exchange.ts), and
// a step is a barrier. Seen from the engine's thread, a view's circuit is still an Operator whose
// step is synchronous: it sends each shard its part of the inputs (split by a key an exchange of
// theirs takes them by, else in slices: partition.ts; the linear stages run where the rows land)
// and waits for every shard's output, which it consolidates.
// Shard 0 is the engine's own thread, which would otherwise only wait: `workers` threads in all do
// the work, and a part of the inputs (a 1/workers share of every step's rows) is never copied.
// Measured in bench:engine before, with every shard on a thread of its own, workers=2 ran at 0.45×
// workers=1: the engine's thread spent 27 % of its time waiting and 19 % copying rows.

/**
 * A body's parts as the shards decoded them: rows by part (those not kept on the shards), the rows
 * the shards kept (kept.ts), the records, and the record of each row.
 */
export interface DecodedBodyParts {
  parts: ZSet[];
  kept: number;
  records: number;
  indexes: number[];
}

/** A relation's delta in `n` parts (partition.ts): the first stays on this thread, the others are packed. */
const split = (z: ZSet, n: number, route: Route | undefined): WireZSet[] =>
  splitDelta(z, n, route).map((part, k) => (k === 0 ? part : packed(part)));

export class ShardPool {
  private readonly signal: Int32Array;
  /** Shard 0, on this thread. */
  private readonly local: Shard;
  private readonly localPorts: MessagePort[];
  /** Shards 1… on worker threads. */
  private readonly controls: MessagePort[] = [];
  private readonly workers: Worker[] = [];
  private nextId = 0;
  /** The step being run (a new StepInput is a new step) and the relations sent in it. */
  private step = 0;
  private stepInput: StepInput | undefined;
  private sent = new Set<string>();
  /** The native tables' rows kept on the shards (kept.ts), as this thread counts them. */
  private readonly keptRows = new Map<string, KeptRows>();

  /**
   * The pool with its shard workers started: resolves once every one of them is ready, when an end
   * of its thread is said in the shared signal that synchronous waits read. A worker that ends before
   * (its module failed to load, say) would otherwise leave the first wait blocked for good, as the
   * thread waiting cannot see the worker's 'exit' event: it fails the start with ShardExited instead.
   */
  static async start(
    count: number,
    { launch = launchShard, codec, spill }: { launch?: LaunchShard; codec?: string; spill?: Spill } = {},
  ): Promise<ShardPool> {
    // The wire formats, for the parts of ingress bodies that shards decode (decode.ts): this
    // thread's shard takes them from here, the workers import them by the same address.
    // One that does not load leaves every body to the engine's thread, which says why.
    const formats =
      codec === undefined ? undefined : ((await import(codec).catch(() => undefined)) as EngineCodec | undefined);
    const pool = new ShardPool(count, launch, new PartDecoder(formats), { codec, spill });
    try {
      await Promise.all(pool.workers.map((worker, k) => ready(worker, k + 1)));
      return pool;
    } catch (error) {
      await pool.close();
      throw error;
    }
  }

  private constructor(
    readonly count: number,
    launch: LaunchShard,
    decoder: PartDecoder,
    { codec, spill }: { codec: string | undefined; spill: Spill | undefined },
  ) {
    const shared = new SharedArrayBuffer(4 * signalSlots(count));
    this.signal = new Int32Array(shared);
    const peers: (MessagePort | undefined)[][] = Array.from({ length: count }, () => new Array(count));
    for (let i = 0; i < count; i++)
      for (let j = i + 1; j < count; j++) {
        const { port1, port2 } = new MessageChannel();
        peers[i]![j] = port1;
        peers[j]![i] = port2;
      }
    this.localPorts = peers[0]!.filter((p): p is MessagePort => p !== undefined);
    this.local = new Shard(
      new ThreadShards(0, count, peers[0]!, this.signal),
      this.signal,
      toWire,
      decoder,
      spill && spillPages(spill),
    );
    for (let k = 1; k < count; k++) {
      const data: ShardWorkerData = { index: k, count, signal: shared, codec, spill };
      const worker = launch(data);
      const { port1, port2 } = new MessageChannel();
      const own = peers[k]!.filter((p): p is MessagePort => p !== undefined);
      worker.postMessage({ control: port2, peers: peers[k] }, [port2, ...own]);
      this.controls.push(port1);
      this.workers.push(worker);
    }
  }

  /**
   * Sends every shard its request and waits for all the replies. A shard whose thread ended will
   * never reply: the wait then throws ShardExited (the shard says so as it exits), where it used to
   * wait forever, since this thread cannot see the worker's 'exit' event while it blocks.
   */
  private all(requests: Request[]): Reply[] {
    for (let k = 1; k < requests.length; k++) {
      const r = requests[k]!;
      this.controls[k - 1]!.postMessage(r, r.kind === 'step' ? transfers(r.inputs.map(([, part]) => part)) : []);
    }
    const own = this.local.serve(requests[0]!);
    return [
      own,
      // Shards 1… that were sent a request (a body may be cut in fewer parts than there are shards).
      ...this.controls.slice(0, requests.length - 1).map((port) =>
        waitFor(
          this.signal,
          replySlot(this.count),
          () => receiveMessageOnPort(port)?.message as Reply | undefined,
          () => throwIfShardExited(this.signal, this.count),
        ),
      ),
    ];
  }

  /** Throws the step's error: the first shard's own (not one that only ended because of it). */
  private static check(replies: Reply[]): void {
    const failed = replies.filter((r) => !r.ok);
    const first = failed.find((r) => !r.aborted) ?? failed[0];
    if (first) throw errorFromWire(first.error);
  }

  /** A view planned here (its types, inputs, or why it is not native) and, when native, on every shard. */
  plan(def: string, columns: Columns, catalog: Catalog, timed: boolean): ViewPlan {
    const local = planView(def, columns, catalog);
    if (!local.native) return local;
    const id = this.nextId++;
    const read: [string, Columns][] = local.inputs.map((r) => [r, catalog.columnsOf(r) as Columns]);
    ShardPool.check(this.all(this.requests(() => ({ kind: 'plan', id, def, columns, catalog: read, timed }))));
    return { ...local, root: new ShardedRoot(this, id, local.inputs) };
  }

  private requests(make: (k: number) => Request): Request[] {
    return Array.from({ length: this.count }, (_, k) => make(k));
  }

  /** One step of view `id` over every shard. */
  run(id: number, input: StepInput, reads: readonly string[]): ZSet {
    if (input !== this.stepInput) {
      this.stepInput = input;
      this.step += 1;
      this.sent = new Set();
    }
    const fresh = reads.filter((r) => !this.sent.has(r));
    const parts = fresh.map((r) => [r, split(input.delta(r), this.count, this.local.route(r))] as const);
    const kept = fresh.filter((r) => input.kept?.(r) === true);
    for (const r of fresh) this.sent.add(r);
    const step = this.step;
    const replies = this.all(
      this.requests((k) => ({ kind: 'step', id, step, inputs: parts.map(([r, p]) => [r, p[k]!]), kept })),
    );
    ShardPool.check(replies);
    const out = new ZSet();
    for (const r of replies) if (r.ok) fromWire(r.out, out);
    return out.consolidate();
  }

  reset(id: number): void {
    ShardPool.check(this.all(this.requests(() => ({ kind: 'reset', id }))));
  }

  /** Shard k's entries of view `id`'s circuit state, `limit` at a time (no step may run meanwhile). */
  *saved(id: number, shard: number, limit: number): Generator<JsonValue> {
    yield* pages((first) => {
      const reply = this.one(shard, { kind: 'save', id, limit, first });
      ShardPool.check([reply]);
      const saved = reply.ok ? reply.saved : undefined;
      return saved && { items: saved.entries, done: saved.done };
    });
  }

  /** View `id`'s circuit profile, summed over the shards (no step may run meanwhile). */
  profile(id: number): OperatorProfile[] {
    const replies = this.all(this.requests(() => ({ kind: 'profile', id })));
    ShardPool.check(replies);
    return sumProfiles(replies.map((r) => (r.ok ? (r.profile ?? []) : [])));
  }

  /**
   * The parts of an ingress body for native table `table`, part k decoded by shard k at once (this
   * thread's own among them), in order; undefined when any part is to be decoded as part of the
   * whole body instead (decode.ts).
   */
  decode(table: DecodeTable, parts: readonly string[], format: unknown, keep: boolean): DecodedBodyParts | undefined {
    if (parts.length > this.count) throw new Error(`${parts.length} parts for ${this.count} shards`);
    const replies = this.all(parts.map((text) => ({ kind: 'decode', table, text, format, keep })));
    const done = replies.map((r) => (r.ok ? r.decoded : undefined));
    if (done.some((d) => d === undefined)) {
      // A part goes back to decoding the whole body (or the ingest fails): the shards that kept
      // theirs give them up first, so that none comes again with a later body.
      done.forEach((d, k) => {
        if (d?.kept) ShardPool.check([this.one(k, { kind: 'unkeep', table: table.name, rows: d.kept.rows })]);
      });
      ShardPool.check(replies);
      return undefined;
    }
    const decoded: DecodedBodyParts = { parts: [], kept: 0, records: 0, indexes: [] };
    const kept = { rows: 0, copies: 0 };
    for (const d of done as WireDecoded[]) {
      if (d.kept) {
        kept.rows += d.kept.rows;
        kept.copies += d.kept.copies;
      } else decoded.parts.push(fromWire(d.z));
      for (const i of d.indexes) decoded.indexes.push(decoded.records + i);
      decoded.records += d.records;
    }
    decoded.kept = kept.rows;
    if (kept.rows > 0) this.kept(table.name).kept(kept);
    return decoded;
  }

  /** Native table `name`'s rows kept on the shards (kept.ts), as this thread counts and reads them. */
  kept(name: string): KeptRows {
    let kept = this.keptRows.get(name);
    if (!kept)
      this.keptRows.set(
        name,
        (kept = new KeptRows(name, this.count, (k, r) => {
          const reply = this.one(k, r);
          ShardPool.check([reply]);
          return reply;
        })),
      );
    return kept;
  }

  /** The step went through: the rows kept for it join the rows the shards hold. */
  commit(): void {
    const pending = [...this.keptRows.values()].filter((k) => k.pending > 0);
    if (pending.length === 0) return;
    ShardPool.check(this.all(this.requests(() => ({ kind: 'commit' }))));
    for (const k of pending) k.committed();
  }

  /** Entries of view `id`'s circuit state back into shard k (after a reset). */
  load(id: number, shard: number, entries: unknown[]): void {
    ShardPool.check([this.one(shard, { kind: 'load', id, entries })]);
  }

  /** One request to shard k alone, and its reply. */
  private one(k: number, r: Request): Reply {
    if (k === 0) return this.local.serve(r);
    const port = this.controls[k - 1]!;
    port.postMessage(r);
    return waitFor(
      this.signal,
      replySlot(this.count),
      () => receiveMessageOnPort(port)?.message as Reply | undefined,
      () => throwIfShardExited(this.signal, this.count),
    );
  }

  async close(): Promise<void> {
    for (const port of [...this.controls, ...this.localPorts]) port.close();
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
