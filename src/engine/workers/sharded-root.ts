import type { Operator, StepInput } from '../operators/operator.js';
import type { ZSet } from '../zset/zset.js';
import type { ShardPool } from './pool.js';

// A view's circuit as the engine's thread sees it when it runs on the shards (pool.ts): an
// Operator whose step is the pool's, and whose state lives on the shards.

/** Where a view's circuit runs when it runs on the shards: the pool, and its id there. */
export const shardedCircuit = (root: Operator): { pool: ShardPool; id: number } | undefined =>
  root instanceof ShardedRoot ? root.circuit : undefined;

/** A view's circuit as the engine's thread sees it when it runs on the shards. */
export class ShardedRoot implements Operator {
  constructor(
    private readonly pool: ShardPool,
    private readonly id: number,
    private readonly reads: readonly string[],
  ) {}
  get circuit(): { pool: ShardPool; id: number } {
    return { pool: this.pool, id: this.id };
  }
  step(input: StepInput): ZSet {
    return this.pool.run(this.id, input, this.reads);
  }
  reset(): void {
    this.pool.reset(this.id);
  }
  /** None here: its operators, and their state, are on the shards (ShardPool.save). */
  sources(): readonly Operator[] {
    return [];
  }
}
