import { type ArithmeticOp, arithmetic, negate } from './arithmetic.js';
import { CAST_TARGETS, literalOf, textOf, Unsupported } from './casts.js';
import { castTo, coerce, commonType, strict1 } from './coerce.js';
import { finite, parseNumeric } from './numeric.js';
import { anyAllOf, callOf, distinctOf, extractOf, minMaxOf, threeValued } from './functions.js';
import { like, likeMatcher } from './like.js';
import {
  BOOL,
  INT4,
  INT8,
  isNumericCategory,
  keyable,
  NUMERIC,
  type SqlType,
  TEXT,
  type Value,
  widerNumeric,
} from './types.js';
import { DATE, TIMESTAMP, TIMESTAMPTZ, temporalComparator } from './temporal.js';
import { temporalArithmetic } from './interval.js';
import { comparatorOf } from './values.js';

// An expression of the view's canonical text (libpg-query's tree of it) compiled into a closure
// over a row (an array of values), typed as PostgreSQL types it. Every node the native path does
// not evaluate exactly as PostgreSQL throws Unsupported with what it is; the planner then leaves
// the whole view to PGlite with that reason.

export type Node = Record<string, unknown>;
export interface Compiled {
  type: SqlType;
  eval: (row: readonly Value[]) => Value;
  /** Set when the expression is a column of the row as it is (a join can output it without the row). */
  column?: number;
  /** Set when the expression is a constant: its value (a function may need it when planned). */
  constant?: Value;
}
export interface Scope {
  /** A column reference (its names: `x.k` or `k`): where it is in the row and its type. */
  column(fields: string[]): { index: number; type: SqlType };
  /** A node the scope evaluates itself (a GROUP BY key, an aggregate), checked before the rest. */
  special?(node: Node): Compiled | undefined;
}

const str = (n: unknown): string => String(((n as Node)?.['String'] as Node | undefined)?.['sval'] ?? '');
const child = (n: Node, k: string): Node => {
  const c = n[k];
  if (typeof c !== 'object' || c === null) throw new Unsupported(`an incomplete ${k}`);
  return c as Node;
};

const constant = (type: SqlType, value: Value): Compiled => ({ type, eval: () => value, constant: value });

function aConst(c: Node): Compiled {
  if (c['isnull']) throw new Unsupported('an untyped NULL');
  if (c['ival']) return constant(INT4, Number((c['ival'] as Node)['ival'] ?? 0));
  if (c['boolval']) return constant(BOOL, Boolean((c['boolval'] as Node)['boolval']));
  if (c['fval']) {
    const text = String((c['fval'] as Node)['fval']);
    if (/^-?\d+$/.test(text)) {
      const n = BigInt(text);
      if (n >= -(2n ** 63n) && n < 2n ** 63n) return constant(INT8, n);
      return constant(NUMERIC, finite(n, 0));
    }
    if (!/^-?\d*\.\d*$/.test(text)) throw new Unsupported(`the number ${text}`);
    return constant(NUMERIC, parseNumeric(text.startsWith('.') ? `0${text}` : text.replace(/\.$/, '')));
  }
  throw new Unsupported('an untyped string literal');
}

function typeCast(node: Node, scope: Scope): Compiled {
  const typeName = child(node, 'typeName');
  const names = (typeName['names'] as unknown[]) ?? [];
  const target = CAST_TARGETS[str(names[names.length - 1])];
  if (!target || typeName['typmods'] || typeName['arrayBounds'])
    throw new Unsupported(`a cast to ${names.map(str).join('.')}`);
  const arg = child(node, 'arg');
  const literal = arg['A_Const'] as Node | undefined;
  if (literal?.['sval']) return constant(target, literalOf(String((literal['sval'] as Node)['sval'] ?? ''), target));
  if (literal?.['isnull']) return constant(target, null);
  const inner = compile(arg, scope);
  return { type: target, eval: strict1(inner, castTo(inner.type, target)) };
}

const COMPARISONS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

function binary(op: string, l: Compiled, r: Compiled): Compiled {
  const test = COMPARISONS[op];
  if (test) {
    const t = commonType([l.type, r.type]);
    // Dates and times are ordered by their instant (their text does not sort as they do).
    const ordered = temporalComparator(t);
    if (t.base === 'opaque' && !ordered && (!keyable(t) || (op !== '=' && op !== '<>')))
      throw new Unsupported(`${op} on ${t.name}`);
    const cmp = ordered ?? comparatorOf(t.base);
    const [a, b] = [coerce(l, t), coerce(r, t)];
    return { type: BOOL, eval: strict2(a, b, (x, y) => test(cmp(x, y))) };
  }
  if (TEXT_OPERATORS.has(op)) return textOperator(op, l, r);
  const temporal = temporalArithmetic(op, l, r, castTo(DATE, TIMESTAMP));
  if (temporal) return { type: TEMPORAL_RESULTS[temporal.type], eval: strict2(l, r, temporal.f) };
  if (!isNumericCategory(l.type) || !isNumericCategory(r.type)) throw new Unsupported(`the operator ${op}`);
  const t = widerNumeric(l.type, r.type);
  const f = ['+', '-', '*', '/', '%'].includes(op) ? arithmetic(t.base, op as ArithmeticOp) : undefined;
  if (!f) throw new Unsupported(`the operator ${op} on ${t.name}`);
  return { type: t, eval: strict2(coerce(l, t), coerce(r, t), f) };
}

/** The types of date/timestamp arithmetic's results (interval.ts). */
const TEMPORAL_RESULTS = { date: DATE, timestamp: TIMESTAMP, timestamptz: TIMESTAMPTZ, integer: INT4 };

const TEXT_OPERATORS = new Set(['||', '~~', '!~~']);

/** `||`, LIKE (`~~`) and NOT LIKE (`!~~`), of text only. */
function textOperator(op: string, l: Compiled, r: Compiled): Compiled {
  // text || a value of another type: that value's text (PostgreSQL's textanycat/anytextcat).
  if (
    op === '||' &&
    (l.type.base === 'text') !== (r.type.base === 'text') &&
    textOf(l.type.base === 'text' ? r.type : l.type)
  )
    return textOperator(op, coerce(l, TEXT), coerce(r, TEXT));
  if (l.type.base !== 'text' || r.type.base !== 'text')
    throw new Unsupported(`${op} on ${l.type.name}, ${r.type.name}`);
  if (op === '||') return { type: TEXT, eval: strict2(l, r, (x, y) => (x as string) + (y as string)) };
  const want = op === '~~';
  if (typeof r.constant === 'string') {
    const matches = likeMatcher(r.constant);
    return { type: BOOL, eval: strict2(l, r, (x) => matches(x as string) === want) };
  }
  return { type: BOOL, eval: strict2(l, r, (x, y) => like(x as string, y as string) === want) };
}

const strict2 =
  (a: Compiled, b: Compiled, f: (x: Value, y: Value) => Value) =>
  (row: readonly Value[]): Value => {
    const x = a.eval(row);
    if (x === null) return null;
    const y = b.eval(row);
    return y === null ? null : f(x, y);
  };

/** x op ANY/ALL (ARRAY[e…]): an IN list; an array of another kind (a column's) is not native. */
function anyAll(node: Node, op: string, all: boolean, scope: Scope): Compiled {
  const elements = (child(node, 'rexpr')['A_ArrayExpr'] as Node | undefined)?.['elements'] as Node[] | undefined;
  if (!elements?.length) throw new Unsupported(`${op} ANY/ALL of an array that is not a list`);
  const x = compile(child(node, 'lexpr'), scope);
  return anyAllOf(
    all,
    elements.map((e) => binary(op, x, compile(e, scope))),
  );
}

function aExpr(node: Node, scope: Scope): Compiled {
  const kind = node['kind'];
  if (kind === 'AEXPR_DISTINCT' || kind === 'AEXPR_NOT_DISTINCT') {
    const [a, b] = [compile(child(node, 'lexpr'), scope), compile(child(node, 'rexpr'), scope)];
    return distinctOf(kind === 'AEXPR_NOT_DISTINCT', a, b, binary('=', a, b));
  }
  if (kind === 'AEXPR_NULLIF') {
    const a = compile(child(node, 'lexpr'), scope);
    const eq = binary('=', a, compile(child(node, 'rexpr'), scope));
    return { type: a.type, eval: (row) => (eq.eval(row) === true ? null : a.eval(row)) };
  }
  const names = (node['name'] as unknown[]) ?? [];
  const any = kind === 'AEXPR_OP_ANY' || kind === 'AEXPR_OP_ALL';
  if ((kind !== 'AEXPR_OP' && !any) || names.length !== 1)
    throw new Unsupported(`the operator ${names.map(str).join('.')}`);
  const op = str(names[0]);
  if (any) return anyAll(node, op, kind === 'AEXPR_OP_ALL', scope);
  const r = compile(child(node, 'rexpr'), scope);
  if (node['lexpr'] === undefined) {
    const f = op === '-' ? negate(r.type.base) : undefined;
    if (!f) throw new Unsupported(`the prefix operator ${op} on ${r.type.name}`);
    return { type: r.type.base === 'numeric' ? NUMERIC : r.type, eval: strict1(r, f) };
  }
  return binary(op, compile(child(node, 'lexpr'), scope), r);
}

function boolExpr(node: Node, scope: Scope): Compiled {
  const args = ((node['args'] as Node[]) ?? []).map((a) => compile(a, scope));
  if (args.some((a) => a.type.base !== 'bool')) throw new Unsupported('a boolean operator on a non-boolean');
  switch (node['boolop']) {
    case 'NOT_EXPR': {
      const [a] = args as [Compiled];
      return {
        type: BOOL,
        eval: (row) => {
          const v = a.eval(row);
          return v === null ? null : !v;
        },
      };
    }
    case 'AND_EXPR':
      return threeValued(false, args);
    default:
      return threeValued(true, args);
  }
}

function caseExpr(node: Node, scope: Scope): Compiled {
  const subject = node['arg'] === undefined ? undefined : compile(child(node, 'arg'), scope);
  const whens = ((node['args'] as Node[]) ?? []).map((w) => {
    const cw = child(w, 'CaseWhen');
    const test = compile(child(cw, 'expr'), scope);
    const cond = subject ? binary('=', subject, test) : test;
    if (cond.type.base !== 'bool') throw new Unsupported('a CASE condition that is not boolean');
    return { cond, result: compile(child(cw, 'result'), scope) };
  });
  const otherwise = node['defresult'] === undefined ? undefined : compile(child(node, 'defresult'), scope);
  const type = commonType([...whens.map((w) => w.result.type), ...(otherwise ? [otherwise.type] : [])]);
  const arms = whens.map((w) => ({ cond: w.cond, result: coerce(w.result, type) }));
  const fallback = otherwise && coerce(otherwise, type);
  return {
    type,
    eval: (row) => {
      for (const arm of arms) if (arm.cond.eval(row) === true) return arm.result.eval(row);
      return fallback ? fallback.eval(row) : null;
    },
  };
}

function coalesce(node: Node, scope: Scope): Compiled {
  const args = ((node['args'] as Node[]) ?? []).map((a) => compile(a, scope));
  const type = commonType(args.map((a) => a.type));
  const coerced = args.map((a) => coerce(a, type));
  return {
    type,
    eval: (row) => {
      for (const a of coerced) {
        const v = a.eval(row);
        if (v !== null) return v;
      }
      return null;
    },
  };
}

function nullTest(node: Node, scope: Scope): Compiled {
  const arg = compile(child(node, 'arg'), scope);
  const isNull = node['nulltesttype'] === 'IS_NULL';
  return { type: BOOL, eval: (row) => (arg.eval(row) === null) === isNull };
}

const BOOLEAN_TESTS: Record<string, (v: Value) => boolean> = {
  IS_TRUE: (v) => v === true,
  IS_NOT_TRUE: (v) => v !== true,
  IS_FALSE: (v) => v === false,
  IS_NOT_FALSE: (v) => v !== false,
  IS_UNKNOWN: (v) => v === null,
  IS_NOT_UNKNOWN: (v) => v !== null,
};

function booleanTest(node: Node, scope: Scope): Compiled {
  const arg = compile(child(node, 'arg'), scope);
  const test = BOOLEAN_TESTS[String(node['booltesttype'])];
  if (!test || arg.type.base !== 'bool') throw new Unsupported('a boolean test');
  return { type: BOOL, eval: (row) => test(arg.eval(row)) };
}

/** A plain call of a function (no aggregate or window clause), by its name alone or in pg_catalog. */
function funcCall(node: Node, scope: Scope): Compiled {
  const names = ((node['funcname'] as unknown[]) ?? []).map(str);
  const name = names.length === 2 && names[0] === 'pg_catalog' ? names[1]! : names.join('.');
  const decorated = ['agg_star', 'agg_distinct', 'agg_filter', 'agg_order', 'over', 'func_variadic'].some(
    (k) => node[k] !== undefined && node[k] !== false,
  );
  if (decorated || (names.length === 2 && names[0] !== 'pg_catalog')) throw new Unsupported(`the function ${name}`);
  const args = (node['args'] as Node[]) ?? [];
  // EXTRACT(field FROM x): its field is an untyped literal, read as written.
  const field = name === 'extract' && args.length === 2 ? child(args[0]!, 'A_Const')['sval'] : undefined;
  if (field) return extractOf(String((field as Node)['sval']), compile(args[1]!, scope));
  return callOf(
    name,
    args.map((a) => compile(a, scope)),
  );
}

function columnRef(node: Node, scope: Scope): Compiled {
  const fields = ((node['fields'] as unknown[]) ?? []).map((f) => {
    if ((f as Node)['A_Star']) throw new Unsupported('*');
    return str(f);
  });
  const { index, type: t } = scope.column(fields);
  return { type: t, eval: (row) => row[index]!, column: index };
}

function minMax(node: Node, scope: Scope): Compiled {
  const args = ((node['args'] as Node[]) ?? []).map((a) => compile(a, scope));
  const type = commonType(args.map((a) => a.type));
  return minMaxOf(
    node['op'] === 'IS_GREATEST',
    type,
    args.map((a) => coerce(a, type)),
  );
}

/** The compiler of each kind of node the native path evaluates. */
const KINDS: Record<string, (node: Node, scope: Scope) => Compiled> = {
  ColumnRef: columnRef,
  A_Const: (node) => aConst(node),
  TypeCast: typeCast,
  A_Expr: aExpr,
  BoolExpr: boolExpr,
  CaseExpr: caseExpr,
  CoalesceExpr: coalesce,
  MinMaxExpr: minMax,
  NullTest: nullTest,
  BooleanTest: booleanTest,
  FuncCall: funcCall,
};

/** One node (a `{Type: {...}}` wrapper) compiled. */
export function compile(wrapper: Node, scope: Scope): Compiled {
  const special = scope.special?.(wrapper);
  if (special) return special;
  const [[type, node]] = Object.entries(wrapper) as [[string, Node]];
  const kind = Object.hasOwn(KINDS, type) ? KINDS[type] : undefined;
  if (!kind) throw new Unsupported(`an expression of kind ${type}`);
  return kind(node, scope);
}

export { Unsupported };
