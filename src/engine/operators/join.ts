import { indexBy, type Key, Trace } from '../traces/trace.js';
import { hashValue } from '../zset/row-hash.js';
import { type Row, ZSet } from '../zset/zset.js';
import type { Operator, StepInput } from './operator.js';

// An equi-join (DBSP): each side keeps a trace of its input indexed by the join key, and a step's
// output is ΔL⋈R + L⋈ΔR + ΔL⋈ΔR (L, R the traces before the step). A row whose key is NULL matches
// nothing. A LEFT join adds the anti-join padded with NULLs: for each key the step touched, the
// left rows that had no match before and the ones that have none after, the difference emitted.

export type KeyOf = (row: Row) => Key | null;

/** The shard route of a row by its join key (a NULL key stays where it is: it matches nothing). */
export const routeByKey =
  (keyOf: KeyOf) =>
  (row: Row): number | null => {
    const k = keyOf(row);
    return k === null ? null : hashValue(k);
  };

/**
 * A joined row: the left row's values, then the right's. Copied by hand: Array.prototype.concat was
 * five times slower on rows of a few columns (it is generic: spreadable objects, species), and a
 * join makes one per output row.
 */
function joined(l: Row, r: Row): Row {
  const n = l.length;
  const row = new Array<Row[number]>(n + r.length);
  for (let i = 0; i < n; i++) row[i] = l[i]!;
  for (let j = 0; j < r.length; j++) row[n + j] = r[j]!;
  return row;
}

/**
 * Only the columns at `picks` of the joined row, built from the two rows directly: a SELECT list
 * of plain columns over a join (Join.projecting) makes one row per output, not two.
 */
const picking =
  (picks: readonly number[]) =>
  (l: Row, r: Row): Row => {
    const n = l.length;
    const row = new Array<Row[number]>(picks.length);
    for (let k = 0; k < picks.length; k++) {
      const p = picks[k]!;
      row[k] = p < n ? l[p]! : r[p - n]!;
    }
    return row;
  };

type Combine = (l: Row, r: Row) => Row;

/** Every pair of a's and b's rows, combined, weights multiplied, into `out`. */
function cross(a: ZSet | undefined, b: ZSet | undefined, out: ZSet, combine: Combine): void {
  if (!a || !b) return;
  const ar = a.rows;
  const aw = a.weights;
  const br = b.rows;
  const bw = b.weights;
  for (let i = 0; i < ar.length; i++) {
    const l = ar[i]!;
    const w = aw[i]!;
    for (let j = 0; j < br.length; j++) out.add(combine(l, br[j]!), w * bw[j]!);
  }
}

export class Join implements Operator {
  private readonly left = new Trace();
  private readonly right = new Trace();
  private combine: Combine = joined;

  constructor(
    private readonly inputs: { left: Operator; right: Operator },
    private readonly keys: { left: KeyOf; right: KeyOf },
    /** LEFT JOIN: the right side's width, for the NULLs that pad an unmatched left row. */
    private readonly padRight?: number,
  ) {}

  /** Outputs only the joined row's columns at `picks` (a projection of plain columns, fused). */
  projecting(picks: readonly number[]): this {
    this.combine = picking(picks);
    return this;
  }

  step(input: StepInput): ZSet {
    const dl = indexBy(this.inputs.left.step(input), this.keys.left);
    const dr = indexBy(this.inputs.right.step(input), this.keys.right).indexed;
    const out = new ZSet();
    for (const [key, zl] of dl.indexed) {
      cross(zl, this.right.get(key), out, this.combine);
      cross(zl, dr.get(key), out, this.combine);
    }
    for (const [key, zr] of dr) cross(this.left.get(key), zr, out, this.combine);
    if (this.padRight !== undefined) this.antiJoin(dl.indexed, dl.unmatched, dr, out);
    this.left.addIndexed(dl.indexed);
    this.right.addIndexed(dr);
    return out;
  }

  private antiJoin(dl: Map<Key, ZSet>, unmatched: ZSet, dr: Map<Key, ZSet>, out: ZSet): void {
    const nulls = new Array<null>(this.padRight!).fill(null);
    const pad = (z: ZSet | undefined, sign: number) => {
      if (z) for (let i = 0; i < z.rows.length; i++) out.add(this.combine(z.rows[i]!, nulls), z.weights[i]! * sign);
    };
    pad(unmatched, 1);
    for (const key of new Set([...dl.keys(), ...dr.keys()])) {
      const before = this.right.total(key);
      const after = before + (dr.get(key)?.count() ?? 0);
      if (before === 0 && after === 0) pad(dl.get(key), 1);
      else if (before === 0) pad(this.left.get(key), -1);
      else if (after === 0) {
        pad(this.left.get(key), 1);
        pad(dl.get(key), 1);
      }
    }
  }

  reset(): void {
    this.left.clear();
    this.right.clear();
    this.inputs.left.reset();
    this.inputs.right.reset();
  }
}
