import type { DumpedPage } from './dump.js';
import {
  CIRCUIT_STATE_VERSION,
  circuitEntries,
  loadEntries,
  pagesOf,
  readsCircuitState,
} from './operators/circuit-state.js';
import { type Operator, statesOf } from './operators/operator.js';
import type { Integral } from './traces/integral.js';
import { shardedCircuit } from './workers/sharded-root.js';

// The native views' circuit state in a checkpoint: written as `circuit` pages after the views'
// rows, one part per view and shard (operators/circuit-state.ts has the entries), and taken back on
// resume. Taking it back is all or nothing: a resume uses it only when every native view's every
// part is there, in this layout and for this number of shards; otherwise (a checkpoint of an
// earlier version, another `workers`) the views are evaluated from the restored tables, as before.

/** A native view's circuit as the engine's thread holds it. */
export interface NativeCircuit {
  view: string;
  root: Operator;
  held: Integral | undefined;
}

/** How many threads hold the circuits' state: the shards of the pool they run on, else one. */
const shardsOf = (circuits: readonly NativeCircuit[]): number => {
  const sharded = circuits.map((c) => shardedCircuit(c.root)).find((s) => s !== undefined);
  return sharded?.pool.count ?? 1;
};

/** The entries of a circuit's part on shard k: the held rows (on this thread) with shard 0's. */
function* partEntries(c: NativeCircuit, shard: number, rows: number): Generator<unknown> {
  const sharded = shardedCircuit(c.root);
  if (!sharded) return yield* circuitEntries(c.root, c.held);
  if (shard === 0) yield* circuitEntries(undefined, c.held);
  yield* sharded.pool.saved(sharded.id, shard, rows);
}

/** Every circuit's state, `rows` entries a page. */
export async function dumpCircuits(
  circuits: readonly NativeCircuit[],
  emit: (page: DumpedPage) => Promise<void>,
  rows: number,
): Promise<void> {
  const shards = shardsOf(circuits);
  for (const c of circuits)
    for (let shard = 0; shard < shards; shard++)
      for (const page of pagesOf(partEntries(c, shard, rows), rows))
        await emit({
          section: 'circuit',
          name: c.view,
          rows: page.length,
          json: JSON.stringify(page),
          circuit: { shard, shards, version: CIRCUIT_STATE_VERSION },
        });
}

/** A restore's taking back of the circuits' state, page by page. */
export class CircuitRestore {
  private readonly seen = new Set<string>();
  private started = false;
  /** Why the state is not taken (then the views are evaluated from the tables). */
  private reason: string | undefined;
  private readonly shards: number;

  constructor(private readonly circuits: readonly NativeCircuit[]) {
    this.shards = shardsOf(circuits);
  }

  take(page: { name: string; rows: unknown[]; circuit?: { shard: number; shards: number; version: number } }): void {
    if (this.reason !== undefined) return;
    try {
      const { circuit } = page;
      const { shards } = this;
      if (!circuit || !readsCircuitState(circuit.version))
        throw new Error(`circuit state of layout ${circuit?.version ?? 'unknown'}, not ${CIRCUIT_STATE_VERSION}`);
      if (circuit.shards !== shards) throw new Error(`circuit state of ${circuit.shards} shards, not ${shards}`);
      const c = this.circuits.find((x) => x.view === page.name);
      if (!c) throw new Error(`circuit state of ${page.name}, which is not a native view`);
      if (!this.started) this.reset();
      const sharded = shardedCircuit(c.root);
      if (!sharded) loadEntries(statesOf(c.root), c.held, page.rows);
      else {
        // The held rows are on this thread, the operators' state on the shard.
        const held: unknown[] = [];
        const ops: unknown[] = [];
        for (const e of page.rows) (Array.isArray(e) && e[0] === -1 ? held : ops).push(e);
        loadEntries([], c.held, held);
        sharded.pool.load(sharded.id, circuit.shard, ops);
      }
      this.seen.add(`${circuit.shard} ${c.view}`);
    } catch (error) {
      this.reason = (error as Error).message;
    }
  }

  private reset(): void {
    this.started = true;
    for (const c of this.circuits) {
      c.root.reset();
      c.held?.clear();
    }
  }

  /** Whether every circuit is resumed; else why not (the caller evaluates them all again). */
  outcome(): { resumed: true } | { resumed: false; reason: string } {
    if (this.reason !== undefined) return { resumed: false, reason: this.reason };
    for (const c of this.circuits)
      for (let shard = 0; shard < this.shards; shard++)
        if (!this.seen.has(`${shard} ${c.view}`))
          return { resumed: false, reason: `the checkpoint holds no circuit state of ${c.view}` };
    return { resumed: true };
  }
}
