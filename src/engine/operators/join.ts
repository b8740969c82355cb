import type { JsonValue } from '../../model/json.js';
import {
  CircuitStateError,
  decodeRow,
  decodeValue,
  encodeRow,
  encodeValue,
  entryOf,
  integerOf,
} from '../traces/codec.js';
import { indexBy, type Key, Trace } from '../traces/trace.js';
import { hashValue } from '../zset/row-hash.js';
import { type Row, ZSet } from '../zset/zset.js';
import type { Operator, StepInput } from './operator.js';

// An equi-join (DBSP): each side keeps a trace of its input indexed by the join key, and a step's
// output is ΔL⋈R + L⋈ΔR + ΔL⋈ΔR (L, R the traces before the step). A row whose key is NULL matches
// nothing. A LEFT join adds the anti-join padded with NULLs: for each key the step touched, the
// left rows that had no match before and the ones that have none after, the difference emitted.

export type KeyOf = (row: Row) => Key | null;

/** Rows of a trace's key per entry of its saved state. */
const SAVED_ROWS = 1_000;

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
 * Only the columns at `picks` of the joined row (left columns first, then the right's), built from
 * the two rows directly. A row from a trace (`lNarrow`, `rNarrow`) holds only its side's columns in
 * `narrow`; a delta's row is whole.
 */
function picking(picks: readonly number[], leftWidth: number, narrow: Narrowing, lNarrow: boolean, rNarrow: boolean) {
  const fromLeft = picks.map((p) => p < leftWidth);
  const at = picks.map((p) =>
    p < leftWidth
      ? lNarrow
        ? narrow.left.indexOf(p)
        : p
      : rNarrow
        ? narrow.right.indexOf(p - leftWidth)
        : p - leftWidth,
  );
  return (l: Row, r: Row): Row => {
    const row = new Array<Row[number]>(at.length);
    for (let k = 0; k < at.length; k++) row[k] = fromLeft[k] ? l[at[k]!]! : r[at[k]!]!;
    return row;
  };
}

/** The columns of each side a trace keeps when the output reads only some (Join.projecting). */
interface Narrowing {
  left: number[];
  right: number[];
}

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

/** How to combine a left row and a right row: each whole (a delta's) or narrowed (a trace's). */
interface Combines {
  whole: Combine;
  rightTrace: Combine;
  leftTrace: Combine;
}

export class Join implements Operator {
  private left = new Trace();
  private right = new Trace();
  private combines: Combines = { whole: joined, rightTrace: joined, leftTrace: joined };

  constructor(
    private readonly inputs: { left: Operator; right: Operator },
    private readonly keys: { left: KeyOf; right: KeyOf },
    private readonly widths: {
      left: number;
      /** LEFT JOIN: the right side's width, for the NULLs that pad an unmatched left row. */
      padRight?: number;
    },
  ) {}

  /**
   * Outputs only the joined row's columns at `picks` (a projection of plain columns, fused), and
   * each trace keeps only the columns of its side that the output reads: bench:engine's
   * order_regions keeps an order's id and amount, not its customer and status (the key is the
   * trace's index, not a column of its rows). A trace's rows summed by those columns alone give the
   * same output: the output is linear in each side.
   */
  projecting(picks: readonly number[]): this {
    const leftWidth = this.widths.left;
    const distinct = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
    const narrow: Narrowing = {
      left: distinct(picks.filter((p) => p < leftWidth)),
      right: distinct(picks.filter((p) => p >= leftWidth).map((p) => p - leftWidth)),
    };
    this.left = new Trace(narrow.left);
    this.right = new Trace(narrow.right);
    this.combines = {
      whole: picking(picks, leftWidth, narrow, false, false),
      rightTrace: picking(picks, leftWidth, narrow, false, true),
      leftTrace: picking(picks, leftWidth, narrow, true, false),
    };
    return this;
  }

  step(input: StepInput): ZSet {
    const dl = indexBy(this.inputs.left.step(input), this.keys.left);
    const dr = indexBy(this.inputs.right.step(input), this.keys.right).indexed;
    const out = new ZSet();
    const { whole, rightTrace, leftTrace } = this.combines;
    for (const [key, zl] of dl.indexed) {
      cross(zl, this.right.get(key), out, rightTrace);
      cross(zl, dr.get(key), out, whole);
    }
    for (const [key, zr] of dr) cross(this.left.get(key), zr, out, leftTrace);
    if (this.widths.padRight !== undefined) this.antiJoin(dl.indexed, dl.unmatched, dr, out);
    this.left.addIndexed(dl.indexed);
    this.right.addIndexed(dr);
    return out;
  }

  private antiJoin(dl: Map<Key, ZSet>, unmatched: ZSet, dr: Map<Key, ZSet>, out: ZSet): void {
    // A whole right row of NULLs: every column any combine reads is there.
    const nulls = new Array<null>(this.widths.padRight!).fill(null);
    const { whole, leftTrace } = this.combines;
    const pad = (z: ZSet | undefined, sign: number, combine: Combine) => {
      if (z) for (let i = 0; i < z.rows.length; i++) out.add(combine(z.rows[i]!, nulls), z.weights[i]! * sign);
    };
    pad(unmatched, 1, whole);
    for (const key of new Set([...dl.keys(), ...dr.keys()])) {
      const before = this.right.total(key);
      const after = before + (dr.get(key)?.count() ?? 0);
      if (before === 0 && after === 0) pad(dl.get(key), 1, whole);
      else if (before === 0) pad(this.left.get(key), -1, leftTrace);
      else if (after === 0) {
        pad(this.left.get(key), 1, leftTrace);
        pad(dl.get(key), 1, whole);
      }
    }
  }

  reset(): void {
    this.left.clear();
    this.right.clear();
    this.inputs.left.reset();
    this.inputs.right.reset();
  }

  /** Rows of both sides' traces. */
  held(): number {
    return this.left.rows + this.right.rows;
  }

  sources(): readonly Operator[] {
    return [this.inputs.left, this.inputs.right];
  }

  /**
   * Each key of each trace: `[side, key, rows, weights]`, rows as the trace holds them (narrowed),
   * at most SAVED_ROWS of them an entry: a key of a million rows is many entries, not one line of
   * tens of megabytes in the checkpoint.
   */
  *save(): Iterable<JsonValue> {
    for (const [side, trace] of [['l', this.left] as const, ['r', this.right] as const])
      for (const [key, z] of trace.buckets())
        for (let i = 0; i < z.rows.length; i += SAVED_ROWS) {
          const rows = z.rows.slice(i, i + SAVED_ROWS).map(encodeRow);
          yield [side, encodeValue(key), rows, z.weights.slice(i, i + SAVED_ROWS)];
        }
  }

  load(entry: unknown): void {
    const [side, key, rows, weights] = entryOf(entry, 4);
    const trace = side === 'l' ? this.left : side === 'r' ? this.right : undefined;
    if (!trace || !Array.isArray(rows) || !Array.isArray(weights) || rows.length !== weights.length)
      throw new CircuitStateError('an entry of a join trace has the wrong shape');
    const k = decodeValue(key);
    if (k === null || typeof k === 'object') throw new CircuitStateError('a join key of circuit state is not a key');
    trace.addHeld(k, new ZSet(rows.map(decodeRow), weights.map(integerOf)));
  }
}
