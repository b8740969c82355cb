import { performance } from 'node:perf_hooks';
import type { Operator, StepInput } from './operator.js';
import type { ZSet } from '../zset/zset.js';
import type { OperatorProfile } from '../../model/circuit-profile.js';

export type { OperatorProfile, ViewProfile } from '../../model/circuit-profile.js';

// A circuit's profile (GET /circuit_profile): each operator, depth first from the view's root, with
// what it holds and, when timed (runtime_config.cpu_profiler, default on), the time its steps took
// and the rows they gave. Timing is put on the operators of a built circuit from outside: each
// one's step is wrapped on the instance, so the operators and the planner know nothing of it, and
// a circuit that is not timed runs exactly as before. Two clock reads per operator and step: on
// bench:engine's views, ~10 operators a step, noise beside a step of milliseconds.

interface Counters {
  steps: number;
  ms: number;
  rows: number;
}

interface Node {
  op: Operator;
  depth: number;
  counters: Counters | undefined;
}

export class CircuitProfile {
  private readonly nodes: Node[] = [];

  constructor(root: Operator, timed: boolean) {
    const visit = (op: Operator, depth: number) => {
      this.nodes.push({ op, depth, counters: timed ? timeSteps(op) : undefined });
      for (const source of op.sources()) visit(source, depth + 1);
    };
    visit(root, 0);
  }

  read(): OperatorProfile[] {
    return this.nodes.map((node, i) => {
      const { op, depth, counters } = node;
      const held = op.held?.() ?? null;
      if (!counters) return { operator: op.constructor.name, depth, held, steps: null, self_ms: null, rows_out: null };
      const inputsMs = this.children(i).reduce((sum, child) => sum + (child.counters?.ms ?? 0), 0);
      const self = Math.max(0, counters.ms - inputsMs);
      return {
        operator: op.constructor.name,
        depth,
        held,
        steps: counters.steps,
        self_ms: Math.round(self * 1000) / 1000,
        rows_out: counters.rows,
      };
    });
  }

  /** The direct inputs of node i: the next nodes one deeper, until one as shallow as it. */
  private children(i: number): Node[] {
    const out: Node[] = [];
    const depth = this.nodes[i]!.depth;
    for (let k = i + 1; k < this.nodes.length && this.nodes[k]!.depth > depth; k++)
      if (this.nodes[k]!.depth === depth + 1) out.push(this.nodes[k]!);
    return out;
  }
}

/** Wraps the operator's step on the instance with counters (time includes its inputs' steps). */
function timeSteps(op: Operator): Counters {
  const counters: Counters = { steps: 0, ms: 0, rows: 0 };
  const step = op.step.bind(op);
  op.step = (input: StepInput): ZSet => {
    const t0 = performance.now();
    try {
      const out = step(input);
      counters.rows += out.size;
      return out;
    } finally {
      counters.ms += performance.now() - t0;
      counters.steps += 1;
    }
  };
  return counters;
}

/** Profiles of the same circuit on several shards as one: what each holds and did, summed. */
export function sumProfiles(shards: readonly OperatorProfile[][]): OperatorProfile[] {
  const [first, ...rest] = shards;
  if (!first) return [];
  const add = (a: number | null, b: number | null) => (a === null || b === null ? a : a + b);
  return first.map((p, i) =>
    rest.reduce<OperatorProfile>((sum, shard) => {
      const q = shard[i]!;
      return {
        ...sum,
        held: add(sum.held, q.held),
        self_ms:
          sum.self_ms === null || q.self_ms === null
            ? sum.self_ms
            : Math.round((sum.self_ms + q.self_ms) * 1000) / 1000,
        rows_out: add(sum.rows_out, q.rows_out),
      };
    }, p),
  );
}
