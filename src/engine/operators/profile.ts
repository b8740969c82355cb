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
  inputs: Node[];
}

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

export class CircuitProfile {
  /** Depth first from the root, each with its inputs (to take their time off its own). */
  private readonly nodes: Node[] = [];

  constructor(root: Operator, timed: boolean) {
    const visit = (op: Operator, depth: number): Node => {
      const node: Node = { op, depth, counters: timed ? timeSteps(op) : undefined, inputs: [] };
      this.nodes.push(node);
      node.inputs = op.sources().map((source) => visit(source, depth + 1));
      return node;
    };
    visit(root, 0);
  }

  read(): OperatorProfile[] {
    return this.nodes.map(({ op, depth, counters, inputs }) => {
      const inputsMs = inputs.reduce((sum, input) => sum + (input.counters?.ms ?? 0), 0);
      return {
        operator: op.constructor.name,
        depth,
        held: op.held?.() ?? null,
        steps: counters?.steps ?? null,
        self_ms: counters ? roundMs(Math.max(0, counters.ms - inputsMs)) : null,
        rows_out: counters?.rows ?? null,
      };
    });
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
      const ms = add(sum.self_ms, q.self_ms);
      return {
        ...sum,
        held: add(sum.held, q.held),
        self_ms: ms && roundMs(ms),
        rows_out: add(sum.rows_out, q.rows_out),
      };
    }, p),
  );
}
