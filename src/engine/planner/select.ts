import { Unsupported } from '../expressions/casts.js';
import { coerce } from '../expressions/coerce.js';
import { compile, type Compiled, type Node, type Scope } from '../expressions/compile.js';
import { keyable, type SqlType, typeOf } from '../expressions/types.js';
import { aggregateKind } from '../operators/accumulators.js';
import { Aggregate, type AggregateSpec } from '../operators/aggregate.js';
import { Join } from '../operators/join.js';
import { Distinct, Filter, type Operator, Project, UnionAll } from '../operators/operator.js';
import { type Catalog, child, planFrom, predicate, scopeOf } from './from.js';
import { Exchange, type Shards } from '../workers/exchange.js';
import { hashRow } from '../zset/row-hash.js';

// A SELECT planned into operators: FROM/WHERE (from.ts), then GROUP BY with its aggregates and
// HAVING, the select list, DISTINCT; UNION ALL of such; each output column cast to the view's type
// as PostgreSQL does. What the native path does not cover throws Unsupported with the reason.

const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const CLAUSES_REFUSED: Record<string, string> = {
  withClause: 'WITH',
  windowClause: 'WINDOW',
  sortClause: 'ORDER BY',
  limitCount: 'LIMIT',
  limitOffset: 'OFFSET',
  lockingClause: 'FOR UPDATE',
  valuesLists: 'VALUES',
  intoClause: 'INTO',
};

/** A node's structure without source positions: equal for equal expressions. */
const shapeOf = (node: unknown): string => JSON.stringify(node, (k, v: unknown) => (k === 'location' ? undefined : v));

function* walk(x: unknown): Generator<[string, Node]> {
  if (Array.isArray(x)) for (const y of x) yield* walk(y);
  else if (typeof x === 'object' && x !== null)
    for (const [k, v] of Object.entries(x)) {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && /^[A-Z]/.test(k)) yield [k, v as Node];
      yield* walk(v);
    }
}

const funcName = (call: Node): string => {
  const names = (call['funcname'] as Node[] | undefined) ?? [];
  return names.map((n) => String((n['String'] as Node)?.['sval'])).join('.');
};

/** An aggregate's FILTER (WHERE c): the rows it takes are those where c is true (not false, not NULL). */
function filterOf(node: Node, scope: Scope): AggregateSpec['filter'] {
  const c = predicate(node, scope);
  return (row) => c(row) === true;
}

function aggregateOf(call: Node, scope: Scope): AggregateSpec {
  const name = funcName(call);
  if (call['agg_order'] || call['over'] || call['agg_within_group'])
    throw new Unsupported(`${name} with ORDER BY, WITHIN GROUP or OVER`);
  const filter = call['agg_filter'] ? filterOf(call['agg_filter'] as Node, scope) : undefined;
  if (call['agg_star']) return { kind: aggregateKind(name, undefined), filter };
  const args = (call['args'] as Node[] | undefined) ?? [];
  if (args.length !== 1) throw new Unsupported(`${name} of ${args.length} arguments`);
  const arg = compile(args[0]!, scope);
  return { kind: aggregateKind(name, arg.type, call['agg_distinct'] === true), arg: arg.eval, filter };
}

/** GROUP BY / aggregates: the Aggregate operator and the scope of the expressions after it. */
function planAggregate(stmt: Node, op: Operator, scope: Scope, shards?: Shards): { op: Operator; scope: Scope } {
  const groupExprs = (stmt['groupClause'] as Node[] | undefined) ?? [];
  const keyShapes = groupExprs.map(shapeOf);
  const keys = groupExprs.map((g) => {
    if (g['GroupingSet'] || g['A_Const']) throw new Unsupported('grouping sets or a GROUP BY position');
    const c = compile(g, scope);
    if (!keyable(c.type)) throw new Unsupported(`GROUP BY a ${c.type.name} key`);
    return c;
  });
  const calls: Node[] = [];
  const callShapes: string[] = [];
  for (const [type, node] of walk([stmt['targetList'], stmt['havingClause']]))
    if (type === 'FuncCall' && AGGREGATES.has(funcName(node)) && !callShapes.includes(shapeOf(node))) {
      calls.push(node);
      callShapes.push(shapeOf(node));
    }
  const specs = calls.map((c) => aggregateOf(c, scope));
  const after: Scope = {
    column: (fields) => {
      throw new Unsupported(`the column ${fields.join('.')} outside GROUP BY`);
    },
    special: (node): Compiled | undefined => {
      const shape = shapeOf(node);
      const k = keyShapes.indexOf(shape);
      if (k >= 0) return { type: keys[k]!.type, eval: (row) => row[k]! };
      const call = node['FuncCall'] as Node | undefined;
      const a = call ? callShapes.indexOf(shapeOf(call)) : -1;
      if (a < 0) return undefined;
      const at = keys.length + a;
      return { type: specs[a]!.kind.type, eval: (row) => row[at]! };
    },
  };
  return {
    op: new Aggregate(
      shards ? new Exchange(op, Aggregate.route(keys.map((k) => k.eval)), shards) : op,
      keys.map((k) => k.eval),
      specs,
    ),
    scope: after,
  };
}

/**
 * The select list over `op`. Plain columns of a join's rows (order_regions in bench:engine) are
 * output by the join itself: one row per output, not a joined row and then its projection.
 */
function projected(op: Operator, exprs: readonly Compiled[]): Operator {
  const picks = exprs.map((e) => e.column);
  if (op instanceof Join && picks.every((p) => p !== undefined)) return op.projecting(picks);
  return new Project(
    op,
    exprs.map((e) => e.eval),
  );
}

/** One SELECT (no set operation), its columns cast to `types`. */
function planSelect(
  stmt: Node,
  catalog: Catalog,
  inputs: Set<string>,
  types: readonly SqlType[],
  inUnion: boolean,
): Operator {
  for (const [clause, what] of Object.entries(CLAUSES_REFUSED))
    if (stmt[clause] !== undefined) throw new Unsupported(what);
  const distinct = stmt['distinctClause'] as Node[] | undefined;
  if (distinct?.some((d) => Object.keys(d).length > 0)) throw new Unsupported('DISTINCT ON');
  const from = planFrom(stmt, catalog, inputs);
  let op = from.op;
  let scope = scopeOf(from.columns);
  const grouped =
    stmt['groupClause'] !== undefined ||
    stmt['havingClause'] !== undefined ||
    [...walk(stmt['targetList'])].some(([t, n]) => t === 'FuncCall' && AGGREGATES.has(funcName(n)));
  if (grouped) ({ op, scope } = planAggregate(stmt, op, scope, catalog.shards));
  if (stmt['havingClause']) op = new Filter(op, predicate(child(stmt, 'havingClause'), scope));
  const targets = ((stmt['targetList'] as Node[] | undefined) ?? []).map((t) => child(child(t, 'ResTarget'), 'val'));
  if (targets.length !== types.length) throw new Unsupported('a select list unlike the view’s columns');
  const exprs = targets.map((t, i) => {
    const c = compile(t, scope);
    const want = types[i]!;
    // The view's column has the select list's type; only a UNION's arms are cast to their common one.
    if (!inUnion && c.type.name !== want.name)
      throw new Unsupported(`column ${i + 1} typed ${c.type.name} here, ${want.name} by PostgreSQL`);
    return coerce(c, want);
  });
  op = projected(op, exprs);
  if (distinct) {
    if (!exprs.every((e) => keyable(e.type))) throw new Unsupported('DISTINCT over numeric or float8 columns');
    const { shards } = catalog;
    op = new Distinct(shards ? new Exchange(op, hashRow, shards) : op);
  }
  return op;
}

/** A query's SelectStmt (a UNION [ALL] tree of SELECTs) planned, its output of the view's `types`. */
export function planQuery(
  stmt: Node,
  catalog: Catalog,
  inputs: Set<string>,
  types: readonly SqlType[],
  inUnion = false,
): Operator {
  const setop = stmt['op'];
  if (setop === undefined || setop === 'SETOP_NONE') return planSelect(stmt, catalog, inputs, types, inUnion);
  const all = stmt['all'] === true;
  if (setop !== 'SETOP_UNION') throw new Unsupported(`${String(setop)}${all ? '' : ' without ALL'}`);
  for (const clause of Object.keys(CLAUSES_REFUSED))
    if (stmt[clause] !== undefined) throw new Unsupported(CLAUSES_REFUSED[clause]!);
  const arms = [child(stmt, 'larg'), child(stmt, 'rarg')];
  const union = new UnionAll(arms.map((arm) => planQuery(arm, catalog, inputs, types, true)));
  if (all) return union;
  // UNION: the distinct rows of both arms (a UNION ALL inside it is made distinct with them).
  if (!types.every(keyable)) throw new Unsupported('UNION over numeric or float8 columns');
  const { shards } = catalog;
  return new Distinct(shards ? new Exchange(union, hashRow, shards) : union);
}

export const typesOf = (columns: readonly { type: string }[]): SqlType[] => columns.map((c) => typeOf(c.type));
