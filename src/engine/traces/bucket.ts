// One key's entries in a trace (trace.ts): row ids in the trace's RowStore, each with a weight.
// Packed: ids in an Int32Array, weights in a Float64Array made only when one is not 1 (exact for
// any integer a weight can reach), since a stream's keys only ever get rows of weight 1. As two JS
// arrays per key, bench:engine's join held ~20 bytes a row of them on the heap (8-byte elements
// and their growth slack, both copied by the young generation's collector as they grew); here 4.

const FIRST_CAPACITY = 2;

export class Bucket {
  private ids = new Int32Array(FIRST_CAPACITY);
  private weights: Float64Array | undefined;
  /** Entries held (a row may appear more than once until consolidated). */
  length = 0;
  /** The sum of the weights. */
  total = 0;
  /** Entries at the last consolidation. */
  clean = 0;
  /** Whether a negative weight came since then. */
  deletes = false;

  id(i: number): number {
    return this.ids[i]!;
  }

  weight(i: number): number {
    return this.weights ? this.weights[i]! : 1;
  }

  /** The weights, as a new array (a ZSet's). */
  weightList(): number[] {
    const out = new Array<number>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.weight(i);
    return out;
  }

  push(id: number, weight: number): void {
    if (this.length === this.ids.length) this.grow(this.length * 2);
    this.ids[this.length] = id;
    if (weight !== 1 && !this.weights) this.weights = new Float64Array(this.ids.length).fill(1, 0, this.length);
    if (this.weights) this.weights[this.length] = weight;
    this.length += 1;
    this.total += weight;
    if (weight < 0) this.deletes = true;
  }

  /** Replaces every entry (a consolidation): `ids[i]` with `weights[i]`. */
  reset(ids: readonly number[], weights: readonly number[]): void {
    this.ids = new Int32Array(Math.max(FIRST_CAPACITY, ids.length));
    this.weights = undefined;
    this.length = 0;
    this.total = 0;
    for (let i = 0; i < ids.length; i++) this.push(ids[i]!, weights[i]!);
    this.deletes = false;
    this.clean = this.length;
  }

  private grow(capacity: number): void {
    const ids = new Int32Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    if (this.weights) {
      const weights = new Float64Array(capacity);
      weights.set(this.weights);
      this.weights = weights;
    }
  }
}
