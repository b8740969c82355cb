import { Filter, type Operator, Scan } from '../operators/operator.js';
import type { Row, ZSet } from '../zset/zset.js';
import { Exchange, type Route } from './exchange.js';

// How a step's delta of a relation is split over the shards. Contiguous slices are right whatever
// the circuits do, since each exchange then sends every row to the shard of its key. But when an
// exchange sees the relation's rows as they are (through filters only: bench:engine's join and
// GROUP BY both take the orders by `customer`), splitting the delta by that exchange's own route
// puts every row where the exchange would send it: the exchange then sends nothing, and so does any
// other exchange of the same key. Correctness never rests on it: a row in the wrong shard is still
// sent where its key belongs.

/** The relation whose rows `op` gives unchanged, through filters only. */
function scanned(op: Operator): string | undefined {
  if (op instanceof Scan) return op.relation;
  if (op instanceof Filter) return scanned(op.sources()[0]!);
  return undefined;
}

/** For each relation an exchange of `root`'s circuit takes as it is, that exchange's route (the first met). */
export function partitionRoutes(root: Operator, into = new Map<string, Route>()): Map<string, Route> {
  const visit = (op: Operator): void => {
    if (op instanceof Exchange) {
      const relation = scanned(op.sources()[0]!);
      if (relation !== undefined && !into.has(relation)) into.set(relation, op.route);
    }
    for (const source of op.sources()) visit(source);
  };
  visit(root);
  return into;
}

/** A delta in `n` parts: by `route` as Exchange places rows (a NULL key on the first), else contiguous slices. */
export function splitDelta(z: ZSet, n: number, route: Route | undefined): { rows: Row[]; weights: number[] }[] {
  const { rows, weights } = z;
  if (!route) {
    const size = Math.ceil(rows.length / n);
    return Array.from({ length: n }, (_, k) => ({
      rows: rows.slice(k * size, (k + 1) * size),
      weights: weights.slice(k * size, (k + 1) * size),
    }));
  }
  const parts = Array.from({ length: n }, () => ({ rows: [] as Row[], weights: [] as number[] }));
  for (let i = 0; i < rows.length; i++) {
    const h = route(rows[i]!);
    const part = parts[h === null ? 0 : (h >>> 0) % n]!;
    part.rows.push(rows[i]!);
    part.weights.push(weights[i]!);
  }
  return parts;
}
