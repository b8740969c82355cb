import type { JsonValue } from '../../model/json.js';
import { circuitEntries, loadEntries } from '../operators/circuit-state.js';
import { type Operator, statesOf } from '../operators/operator.js';
import { CircuitProfile } from '../operators/profile.js';
import { planView } from '../planner/plan.js';
import { ZSet } from '../zset/zset.js';
import type { PartDecoder } from './decode.js';
import type { ThreadShards } from './exchange.js';
import { abortSlot, type Reply, type Request } from './protocol.js';
import { Aborted, errorToWire, fromWire, notify, type WireZSet } from './wire.js';

// One shard: the circuits of the native views, each holding this shard's part of every stateful
// operator's state, serving the engine's requests. Shard 0 runs on the engine's own thread (it
// needs no copy of its part of the inputs), the others in shard workers (shard-worker.ts).

export class Shard {
  private readonly roots = new Map<number, Operator>();
  private readonly profiles = new Map<number, CircuitProfile>();
  /** The circuits whose state a checkpoint is reading, where it is in each. */
  private readonly saving = new Map<number, Generator<JsonValue>>();
  /** This step's parts of the relations, as sent. */
  private parts = new Map<string, ZSet>();
  private partsStep = -1;

  constructor(
    private readonly shards: ThreadShards,
    private readonly signal: Int32Array,
    /** How its output goes back: as it is on the engine's thread, packed from a worker. */
    private readonly wire: (z: ZSet) => WireZSet,
    private readonly decoder: PartDecoder,
  ) {}

  /**
   * Every request gets a reply, whatever it throws: the engine's thread waits for a worker's reply
   * synchronously (Atomics.wait), so an exception that ended its thread unanswered would hang it.
   */
  serve(r: Request): Reply {
    try {
      return this.handle(r);
    } catch (error) {
      return { ok: false, error: errorToWire(error), aborted: false };
    }
  }

  /** View `id`'s circuit on this shard. */
  circuit(id: number): Operator | undefined {
    return this.roots.get(id);
  }

  /** The next entries of a circuit's state: a save runs over several requests, no step between them. */
  private save(id: number, root: Operator, limit: number): { entries: JsonValue[]; done: boolean } {
    let saving = this.saving.get(id);
    if (!saving) this.saving.set(id, (saving = circuitEntries(root)));
    const entries: JsonValue[] = [];
    while (entries.length < limit) {
      const next = saving.next();
      if (next.done) {
        this.saving.delete(id);
        return { entries, done: true };
      }
      entries.push(next.value);
    }
    return { entries, done: false };
  }

  private handle(r: Request): Reply {
    if (r.kind === 'plan') {
      const byName = new Map(r.catalog);
      const plan = planView(r.def, r.columns, { columnsOf: (name) => byName.get(name), shards: this.shards });
      if (!plan.native) return { ok: false, error: { message: `not native: ${plan.reason}` }, aborted: false };
      this.roots.set(r.id, plan.root);
      this.profiles.set(r.id, new CircuitProfile(plan.root, r.timed));
      return { ok: true };
    }
    if (r.kind === 'profile') return { ok: true, profile: this.profiles.get(r.id)!.read() };
    if (r.kind === 'decode') {
      const part = this.decoder.decode(r.table, r.text, r.format);
      if (!part) return { ok: true };
      const { rows, weights, records, indexes } = part;
      return { ok: true, decoded: { z: this.wire(new ZSet(rows, weights)), records, indexes } };
    }
    const root = this.roots.get(r.id)!;
    if (r.kind === 'reset') {
      root.reset();
      return { ok: true };
    }
    if (r.kind === 'save') {
      if (r.first) this.saving.delete(r.id);
      return { ok: true, saved: this.save(r.id, root, r.limit) };
    }
    if (r.kind === 'load') {
      loadEntries(statesOf(root), undefined, r.entries);
      return { ok: true };
    }
    if (r.step !== this.partsStep) {
      this.parts = new Map();
      this.partsStep = r.step;
    }
    for (const [name, part] of r.inputs) this.parts.set(name, fromWire(part));
    this.shards.step = r.step;
    try {
      return { ok: true, out: this.wire(root.step({ delta: (name) => this.parts.get(name) ?? new ZSet() })) };
    } catch (error) {
      const aborted = error instanceof Aborted;
      if (!aborted) {
        // The others may be waiting for this shard at an exchange: they end the step too.
        const { count } = this.shards;
        Atomics.store(this.signal, abortSlot(count), r.step);
        for (let k = 0; k < count; k++) notify(this.signal, k);
      }
      return { ok: false, error: errorToWire(error), aborted };
    }
  }
}
