// GET /circuit_profile's body (docs/data-path.md, "Circuit profile"): the engine builds it
// (src/engine/operators/profile.ts), the pipeline answers it, the console shows it.

export interface OperatorProfile {
  /** Its class: Scan, Filter, Project, UnionAll, Join, Aggregate, Distinct, Exchange, Consolidate. */
  operator: string;
  /** 0 for the view's root, its inputs 1, and so on: the list is the tree, depth first. */
  depth: number;
  /** A stateful operator's groups (Aggregate), distinct rows (Distinct) or trace rows (Join). */
  held: number | null;
  /** Steps that ran it, and their time in it, less its inputs' (null when not timed). */
  steps: number | null;
  self_ms: number | null;
  /** Rows (with their weights' signs, not consolidated) its steps gave. */
  rows_out: number | null;
}

/** One view of the program in the profile: a native one has its circuit's operators. */
export interface ViewProfile {
  view: string;
  /** How it is kept: `native`, or the PGlite path's rule (docs/engine.md). */
  maintenance: string | null;
  /** Why it is not native. */
  reason: string | null;
  /** Shards its circuit runs on (runtime_config.workers, within the cores): null off the native path. */
  shards: number | null;
  /** A materialized native view's rows held for snapshots and queries (traces/integral.ts). */
  held_rows: number | null;
  operators: OperatorProfile[] | null;
}

export interface CircuitProfileBody {
  /** runtime_config.cpu_profiler: the operators' steps, time and rows are measured. */
  timed: boolean;
  views: ViewProfile[];
}
