import type { JsonValue } from '../../model/json.js';
import { type Operator, type Stateful, statesOf } from './operator.js';
import { CircuitStateError, entryOf, integerOf } from '../traces/codec.js';
import type { Integral } from '../traces/integral.js';

// A native view's state as a checkpoint holds it (ENGINE.md "State and checkpoints"): the entries of
// its circuit's stateful operators (join traces, groups and their accumulators, DISTINCT's counts)
// and of its held rows, each `[op, entry]`: op -1 for the held rows, k for the k-th stateful operator
// of the circuit walked from its root (statesOf). On N threads each shard writes its own part.
// A resume that takes every view's state does not evaluate the views again from the tables: its
// time follows the size of the state, not of the views' output (a join's whole output, a view's
// every group fed its rows again), and nothing is recomputed that was computed before.

/**
 * The layout of the entries. A checkpoint whose circuit pages have another version (or another
 * number of shards) is resumed by evaluating the views from its tables, as before this state was
 * written: bump it whenever an operator's entries change.
 */
export const CIRCUIT_STATE_VERSION = 2;

/** Layouts still read: 1 is 2 without the further parts of a large MIN/MAX (all of it was one entry). */
export const readsCircuitState = (version: number | undefined): boolean =>
  version === 1 || version === CIRCUIT_STATE_VERSION;

/** The held rows' op in an entry. */
const HELD = -1;

/** The entries of a circuit on this thread (its held rows first, when `held`). */
export function* circuitEntries(root: Operator | undefined, held?: Integral): Generator<JsonValue> {
  if (held) for (const e of held.save()) yield [HELD, e];
  if (!root) return;
  const states = statesOf(root);
  for (let k = 0; k < states.length; k++) for (const e of states[k]!.save()) yield [k, e];
}

/** Takes entries back into a reset circuit on this thread (`states`: statesOf its root). */
export function loadEntries(
  states: readonly Stateful[],
  held: Integral | undefined,
  entries: readonly unknown[],
): void {
  for (const entry of entries) {
    const [op, e] = entryOf(entry, 2);
    const k = integerOf(op);
    const target = k === HELD ? held : states[k];
    if (!target) throw new CircuitStateError(`circuit state names operator ${k}, which the view does not have`);
    target.load(e);
  }
}

/** `entries` in arrays of `size` (always one, maybe empty: a part with no page would look missing). */
export function* pagesOf<T>(entries: Iterable<T>, size: number): Generator<T[]> {
  let page: T[] = [];
  let any = false;
  for (const e of entries) {
    page.push(e);
    if (page.length >= size) {
      yield page;
      any = true;
      page = [];
    }
  }
  if (page.length > 0 || !any) yield page;
}
