import { Unsupported } from '../expressions/casts.js';
import { coerce, commonType } from '../expressions/coerce.js';
import { compile, type Compiled, type Node, type Scope } from '../expressions/compile.js';
import { keyable, type SqlType, typeOf, type Value } from '../expressions/types.js';
import { equalityKey, equalityMapKey } from '../expressions/values.js';
import { Join, type KeyOf, routeByKey } from '../operators/join.js';
import { Exchange, type Shards } from '../workers/exchange.js';
import { Filter, type Operator, Scan } from '../operators/operator.js';
import type { Row } from '../zset/zset.js';

// The FROM clause planned: each relation a scan of its delta, JOIN … ON and comma joins as
// equi-joins on the column equalities between their two sides (the other conditions a filter after
// an inner join, or before it on the right side of a LEFT JOIN), and the scope the rest of the query
// resolves its column references in.

export interface ScopeColumn {
  alias: string;
  name: string;
  type: SqlType;
}
export interface Planned {
  op: Operator;
  columns: ScopeColumn[];
}
export interface Catalog {
  columnsOf(relation: string): { name: string; type: string }[] | undefined;
  /** Set when the circuit is one shard of several (src/engine/workers): exchanges before joins. */
  shards?: Shards;
}

/** A join of two inputs, each exchanged by its key first when the circuit is sharded. */
function joinOf(left: Planned, right: Operator, keys: { left: KeyOf; right: KeyOf }, catalog: Catalog, pad?: number) {
  const { shards } = catalog;
  const by = (keyOf: KeyOf) => (op: Operator) => (shards ? new Exchange(op, routeByKey(keyOf), shards) : op);
  return new Join({ left: by(keys.left)(left.op), right: by(keys.right)(right) }, keys, {
    left: left.columns.length,
    padRight: pad,
  });
}

export const child = (n: Node, k: string): Node => {
  const c = n[k];
  if (typeof c !== 'object' || c === null) throw new Unsupported(`no ${k}`);
  return c as Node;
};

/** A scope over the planned columns: `x.k` by alias and name, `k` when one column has the name. */
export function scopeOf(columns: readonly ScopeColumn[]): Scope {
  return {
    column(fields) {
      const matches = columns
        .map((c, index) => ({ c, index }))
        .filter(({ c }) =>
          fields.length === 1 ? c.name === fields[0] : c.alias === fields[0] && c.name === fields[1],
        );
      if (fields.length > 2 || matches.length !== 1) throw new Unsupported(`the column reference ${fields.join('.')}`);
      const [{ c, index }] = matches as [{ c: ScopeColumn; index: number }];
      return { index, type: c.type };
    },
  };
}

/** The conjuncts of a condition (AND flattened). */
export function conjuncts(node: Node | undefined): Node[] {
  if (!node) return [];
  const b = node['BoolExpr'] as Node | undefined;
  if (b?.['boolop'] === 'AND_EXPR') return ((b['args'] as Node[]) ?? []).flatMap(conjuncts);
  return [node];
}

export function predicate(node: Node, scope: Scope): (row: Row) => Value {
  const c = compile(node, scope);
  if (c.type.base !== 'bool') throw new Unsupported('a condition that is not boolean');
  return c.eval;
}

/** `l = r` with l in the left columns and r in the right ones: the two sides compiled. */
function equality(node: Node, left: Scope, right: Scope): [Compiled, Compiled] | undefined {
  const e = node['A_Expr'] as Node | undefined;
  const name = (e?.['name'] as Node[] | undefined) ?? [];
  if (!e || e['kind'] !== 'AEXPR_OP' || name.length !== 1) return undefined;
  if (((name[0]!['String'] as Node)?.['sval'] as string) !== '=') return undefined;
  const [a, b] = [e['lexpr'] as Node, e['rexpr'] as Node];
  if (!a?.['ColumnRef'] || !b?.['ColumnRef']) return undefined;
  const attempt = (x: Node, y: Node): [Compiled, Compiled] | undefined => {
    try {
      return [compile(x, left), compile(y, right)];
    } catch {
      return undefined;
    }
  };
  return attempt(a, b) ?? attempt(b, a);
}

/** The join key functions of equalities (each side cast to their common type first). */
function keysOf(pairs: [Compiled, Compiled][]): { left: KeyOf; right: KeyOf } {
  const sides = pairs.map(([l, r]) => {
    const t = commonType([l.type, r.type]);
    if (t.base === 'opaque' && !keyable(t)) throw new Unsupported(`a join on ${t.name}`);
    return { t, l: coerce(l, t), r: coerce(r, t) };
  });
  const [one] = sides;
  const keyOf = (pick: (s: (typeof sides)[number]) => Compiled): KeyOf => {
    if (sides.length === 1 && one) {
      const { eval: value } = pick(one);
      const base = one.t.base;
      return (row) => {
        const v = value(row);
        return v === null ? null : equalityMapKey(base, v);
      };
    }
    return (row) => {
      let key = '';
      for (const s of sides) {
        const v = pick(s).eval(row);
        if (v === null) return null;
        key += `${equalityKey(s.t.base, v)}\u0000`;
      }
      return key;
    };
  };
  return { left: keyOf((s) => s.l), right: keyOf((s) => s.r) };
}

/**
 * An inner join of two planned inputs on the equalities among `conditions` between them; the
 * conditions used up are removed from the list.
 */
function innerJoin(left: Planned, right: Planned, conditions: Node[], catalog: Catalog): Planned {
  const pairs: [Compiled, Compiled][] = [];
  for (let i = conditions.length - 1; i >= 0; i--) {
    const pair = equality(conditions[i]!, scopeOf(left.columns), scopeOf(right.columns));
    if (pair) {
      pairs.push(pair);
      conditions.splice(i, 1);
    }
  }
  // Without one the join is a cross product held whole in both traces (`a.id = b.id + 1` is one:
  // 25,000 rows a side ran out of memory); PostgreSQL's planner evaluates it instead.
  if (pairs.length === 0) throw new Unsupported('a join without a column equality between its sides');
  return {
    op: joinOf(left, right.op, keysOf(pairs), catalog),
    columns: [...left.columns, ...right.columns],
  };
}

function rangeVar(node: Node, catalog: Catalog, inputs: Set<string>): Planned {
  const relname = String(node['relname']);
  if (node['schemaname'] !== undefined && node['schemaname'] !== 'public')
    throw new Unsupported(`a relation of schema ${String(node['schemaname'])}`);
  const columns = catalog.columnsOf(relname);
  if (!columns) throw new Unsupported(`the relation ${relname}, not the program's`);
  const alias = String((node['alias'] as Node | undefined)?.['aliasname'] ?? relname);
  inputs.add(relname);
  return { op: new Scan(relname), columns: columns.map((c) => ({ alias, name: c.name, type: typeOf(c.type) })) };
}

function joinExpr(node: Node, catalog: Catalog, inputs: Set<string>): Planned {
  if (node['usingClause'] || node['isNatural'] || node['alias'])
    throw new Unsupported('a USING, NATURAL or aliased join');
  const left = fromItem(child(node, 'larg'), catalog, inputs);
  const right = fromItem(child(node, 'rarg'), catalog, inputs);
  const conditions = conjuncts(node['quals'] as Node | undefined);
  if (node['jointype'] === 'JOIN_INNER') {
    const joined = innerJoin(left, right, conditions, catalog);
    const scope = scopeOf(joined.columns);
    for (const c of conditions) joined.op = new Filter(joined.op, predicate(c, scope));
    return joined;
  }
  if (node['jointype'] !== 'JOIN_LEFT') throw new Unsupported(`a ${String(node['jointype'])}`);
  // LEFT JOIN: conditions on the right side alone filter it before the join; others are not native.
  const rightScope = scopeOf(right.columns);
  const pairs: [Compiled, Compiled][] = [];
  let rightOp = right.op;
  for (const c of conditions) {
    const pair = equality(c, scopeOf(left.columns), rightScope);
    if (pair) pairs.push(pair);
    else rightOp = new Filter(rightOp, predicate(c, rightScope));
  }
  const op = joinOf(left, rightOp, keysOf(pairs), catalog, right.columns.length);
  return { op, columns: [...left.columns, ...right.columns] };
}

function fromItem(node: Node, catalog: Catalog, inputs: Set<string>): Planned {
  if (node['RangeVar']) return rangeVar(node['RangeVar'] as Node, catalog, inputs);
  if (node['JoinExpr']) return joinExpr(node['JoinExpr'] as Node, catalog, inputs);
  throw new Unsupported(`${Object.keys(node)[0]} in FROM`);
}

/** FROM and WHERE: the joined, filtered input of the query's select list. */
export function planFrom(stmt: Node, catalog: Catalog, inputs: Set<string>): Planned {
  const items = (stmt['fromClause'] as Node[] | undefined) ?? [];
  if (items.length === 0) throw new Unsupported('a query without FROM');
  const conditions = conjuncts(stmt['whereClause'] as Node | undefined);
  let planned = fromItem(items[0]!, catalog, inputs);
  for (const item of items.slice(1)) planned = innerJoin(planned, fromItem(item, catalog, inputs), conditions, catalog);
  const scope = scopeOf(planned.columns);
  for (const c of conditions) planned = { ...planned, op: new Filter(planned.op, predicate(c, scope)) };
  return planned;
}
