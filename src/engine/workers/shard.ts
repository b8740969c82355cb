import type { JsonValue } from '../../model/json.js';
import { circuitEntries, loadEntries } from '../operators/circuit-state.js';
import { type Operator, statesOf } from '../operators/operator.js';
import { CircuitProfile } from '../operators/profile.js';
import { planView } from '../planner/plan.js';
import { ZSet } from '../zset/zset.js';
import type { PartDecoder } from './decode.js';
import type { Route, ThreadShards } from './exchange.js';
import { KeptTables } from './kept.js';
import type { PageStore } from '../traces/row-log.js';
import { Cursors } from './pages.js';
import { partitionRoutes } from './partition.js';
import { abortSlot, type Reply, type Request } from './protocol.js';
import { Aborted, errorToWire, fromWire, notify, type WireZSet } from './wire.js';

// One shard: the circuits of the native views, each holding this shard's part of every stateful
// operator's state, serving the engine's requests. Shard 0 runs on the engine's own thread (it
// needs no copy of its part of the inputs), the others in shard workers (shard-worker.ts).

export class Shard {
  private readonly roots = new Map<number, Operator>();
  private readonly profiles = new Map<number, CircuitProfile>();
  /** The circuits whose state a checkpoint is reading, where it is in each. */
  private readonly saving = new Cursors<number, JsonValue>();
  /** This step's parts of the relations, as sent. */
  private parts = new Map<string, ZSet>();
  private partsStep = -1;
  /** Native tables' rows kept where they were decoded (kept.ts). */
  private readonly kept: KeptTables;
  /** How each relation's rows are best placed over the shards (partition.ts), as every shard plans them. */
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly shards: ThreadShards,
    private readonly signal: Int32Array,
    /** How its output goes back: as it is on the engine's thread, packed from a worker. */
    private readonly wire: (z: ZSet) => WireZSet,
    private readonly decoder: PartDecoder,
    /** Where its kept tables' full pages of rows go (traces/row-log.ts); in memory by default. */
    pages?: () => PageStore,
  ) {
    this.kept = new KeptTables(pages);
  }

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

  /** How relation `name`'s rows are best placed over the shards (partition.ts); contiguous where absent. */
  route(name: string): Route | undefined {
    return this.routes.get(name);
  }

  private handle(r: Request): Reply {
    if (r.kind === 'plan') {
      const byName = new Map(r.catalog);
      const plan = planView(r.def, r.columns, { columnsOf: (name) => byName.get(name), shards: this.shards });
      if (!plan.native) return { ok: false, error: { message: `not native: ${plan.reason}` }, aborted: false };
      this.roots.set(r.id, plan.root);
      this.profiles.set(r.id, new CircuitProfile(plan.root, r.timed));
      // Every shard plans the same circuits in the same order: the same routes everywhere.
      partitionRoutes(plan.root, this.routes);
      return { ok: true };
    }
    if (r.kind === 'profile') return { ok: true, profile: this.profiles.get(r.id)!.read() };
    if (r.kind === 'step') return this.step(r);
    if (r.kind === 'reset' || r.kind === 'save' || r.kind === 'load') return this.state(r);
    return this.tables(r);
  }

  /** A request about the native tables' rows: decoded here, kept here (kept.ts). */
  private tables(r: Extract<Request, { kind: 'decode' | 'commit' | 'rows' | 'drop' | 'unkeep' }>): Reply {
    switch (r.kind) {
      case 'decode': {
        const part = this.decoder.decode(r.table, r.text, r.format);
        if (!part) return { ok: true };
        const { rows, weights, records, indexes } = part;
        if (r.keep && weights.every((w) => w > 0)) {
          this.kept.keep(r.table, rows, weights);
          const copies = weights.reduce((n, w) => n + w, 0);
          return { ok: true, decoded: { kept: { rows: rows.length, copies }, records, indexes } };
        }
        return { ok: true, decoded: { z: this.wire(new ZSet(rows, weights)), records, indexes } };
      }
      case 'rows': {
        const { z, done } = this.kept.rows(r.table, r.pending, r.first, r.limit);
        return { ok: true, rows: { z: this.wire(z), done } };
      }
      case 'commit':
        this.kept.commit();
        break;
      case 'drop':
        this.kept.drop(r.table, r);
        break;
      case 'unkeep':
        this.kept.unkeep(r.table, r.rows);
    }
    return { ok: true };
  }

  /** A request about a circuit's state. */
  private state(r: Extract<Request, { kind: 'reset' | 'save' | 'load' }>): Reply {
    const root = this.roots.get(r.id)!;
    if (r.kind === 'reset') root.reset();
    else if (r.kind === 'save') {
      // A save runs over several requests, no step between them.
      const { items: entries, done } = this.saving.page(r.id, r.first, r.limit, () => circuitEntries(root));
      return { ok: true, saved: { entries, done } };
    } else loadEntries(statesOf(root), undefined, r.entries);
    return { ok: true };
  }

  /** A step of a circuit: its inputs as sent, and the rows kept here of the tables it reads. */
  private step(r: Extract<Request, { kind: 'step' }>): Reply {
    const root = this.roots.get(r.id)!;
    if (r.step !== this.partsStep) {
      this.parts = new Map();
      this.partsStep = r.step;
    }
    for (const [name, part] of r.inputs) this.parts.set(name, fromWire(part));
    this.shards.step = r.step;
    try {
      for (const name of r.kept) {
        const delta = this.kept.delta(name, this.routes.get(name), this.shards);
        // The kept rows' delta may be the very arrays their commit appends (kept.ts): the rows
        // sent go into the set decoded from the wire, never into it.
        const sent = this.parts.get(name);
        if (sent) sent.addAll(delta);
        else this.parts.set(name, delta);
      }
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
