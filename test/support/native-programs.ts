import fc from 'fast-check';

// Random programs for the native path's property test: typed columns (int, bigint, numeric, float8,
// text) with edge values (NULL, NaN, ±0, ±Infinity, the integer limits, 30-digit numerics, equal
// numerics of different scales, non-ASCII text), and views of the native grammar over the tables
// and earlier views (filter, projections with arithmetic that may overflow, CASE/COALESCE/NULLIF,
// casts, abs, length, IN lists, inner and left joins, GROUP BY with COUNT/SUM/AVG/MIN/MAX (DISTINCT, FILTER) and HAVING, a global aggregate,
// DISTINCT, UNION ALL), and shapes the native path leaves to PGlite (ILIKE, SUM of float8, GROUP BY
// numeric), so that programs mix the two.

export type ColType = 'int' | 'bigint' | 'numeric' | 'float8' | 'text';
export interface Col {
  name: string;
  type: ColType;
}
export interface Rel {
  name: string;
  cols: Col[];
}

export const NATIVE_TABLES: Rel[] = [
  {
    name: 't1',
    cols: [
      { name: 'k', type: 'int' },
      { name: 'v', type: 'int' },
      { name: 'b', type: 'bigint' },
      { name: 'n', type: 'numeric' },
      { name: 'f', type: 'float8' },
      { name: 's', type: 'text' },
    ],
  },
  {
    name: 't2',
    cols: [
      { name: 'k', type: 'int' },
      { name: 'w', type: 'int' },
      { name: 'n', type: 'numeric' },
      { name: 'f', type: 'float8' },
      { name: 's', type: 'text' },
    ],
  },
];
export const NATIVE_TABLES_SQL = `CREATE TABLE t1 (k int, v int, b bigint, n numeric, f float8, s text);
CREATE TABLE t2 (k int PRIMARY KEY, w int, n numeric, f float8, s text);`;

// t1 is a multiset whose deletes go by value: its numerics and floats never hold two spellings of
// one value (1.0 and 1.00, 0 and -0), or a delete could take the other copy than the model thinks.
// t2 is keyed: there they may, and joins on n and f meet equal values of different spellings.
export const VALUES = {
  int: [0, 1, 2, 3, -1, 2147483647, -2147483648],
  bigint: ['0', '1', '-5', '7', '9223372036854775807', '-9223372036854775808', '9007199254740993'],
  t1n: ['1.5', '2.50', '-3', '0.000', 'NaN', 'Infinity', '123456789012345678901234567890.12', '0.1'],
  t2n: ['1.0', '1.00', '1', '2.5', '-0.10', 'NaN', '-Infinity', '123456789012345678901234567890.12'],
  t1f: ['1.5', '-0', 'NaN', '0.1', '1e300', 'Infinity', '-2'],
  t2f: ['0', '-0', 'NaN', '1.5', '-Infinity', '0.30000000000000004'],
  text: ['a', 'B', 'é', '😀', '', 'ab', 'Z', '\uffff'],
};

const SHAPES = [
  'filter',
  'arith',
  'exprs',
  'join',
  'left',
  'group',
  'having',
  'global',
  'distinct',
  'union',
  'like',
  'floatsum',
  'funcs',
] as const;
export interface ViewSpec {
  shape: (typeof SHAPES)[number];
  a: number;
  b: number;
  c: number;
  d: number;
  materialized: boolean;
}
export const nativeViewSpec: fc.Arbitrary<ViewSpec> = fc.record({
  shape: fc.constantFrom(...SHAPES),
  a: fc.nat(30),
  b: fc.nat(30),
  c: fc.nat(30),
  d: fc.integer({ min: -1, max: 3 }),
  materialized: fc.boolean(),
});

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
const ofType = (rel: Rel, types: ColType[]): Col[] => rel.cols.filter((c) => types.includes(c.type));
const NUMBERS: ColType[] = ['int', 'bigint', 'numeric', 'float8'];

interface Out {
  sql: string;
  cols: Col[];
}

interface Ctx {
  spec: ViewSpec;
  x: Rel;
  y: Rel;
  any: Col;
  ints: Col[];
  nums: Col[];
}

function sqlFilter({ spec, x, nums }: Ctx): Out | undefined {
  const c = pick(nums.length > 0 ? nums : x.cols, spec.c);
  const cond =
    c.type === 'text'
      ? `${c.name} > 'a'`
      : spec.d < 0
        ? `${c.name} IS NULL OR NOT (${c.name} <> ${spec.d + 1})`
        : `${c.name} > ${spec.d}`;
  return { sql: `SELECT * FROM ${x.name} WHERE ${cond}`, cols: x.cols };
}

function sqlArith({ spec, x, nums }: Ctx): Out | undefined {
  if (nums.length === 0) return undefined;
  const l = pick(nums, spec.c);
  const r = pick(nums, spec.b);
  const op = pick(['+', '-', '*', '/'], spec.a);
  const widen = (t: ColType, u: ColType): ColType => NUMBERS[Math.max(NUMBERS.indexOf(t), NUMBERS.indexOf(u))]!;
  const t = widen(l.type, r.type);
  return {
    sql: `SELECT ${l.name} AS p0, ${l.name} ${op} ${r.name} AS p1, -${l.name} AS p2, ${l.name} * 3 AS p3 FROM ${x.name}`,
    cols: [
      { name: 'p0', type: l.type },
      { name: 'p1', type: t },
      { name: 'p2', type: l.type },
      { name: 'p3', type: l.type },
    ],
  };
}

function sqlExprs({ spec, x, ints }: Ctx): Out | undefined {
  const c = pick(ints.length > 0 ? ints : x.cols, spec.c);
  if (c.type !== 'int' && c.type !== 'bigint') {
    const t = ofType(x, ['text'])[0];
    if (!t) return undefined;
    return {
      sql: `SELECT ${t.name} || 'x' AS e0, COALESCE(${t.name}, 'none') AS e1, NULLIF(${t.name}, 'a') AS e2 FROM ${x.name}`,
      cols: ['e0', 'e1', 'e2'].map((name) => ({ name, type: 'text' as const })),
    };
  }
  return {
    sql: `SELECT CASE WHEN ${c.name} > ${spec.d} THEN ${c.name} ELSE -${c.name} END AS e0,
                COALESCE(${c.name}, ${spec.d}) AS e1, NULLIF(${c.name}, 1) AS e2, (${c.name})::numeric AS e3,
                (${c.name})::double precision AS e4, ${c.name} % 2 AS e5 FROM ${x.name}`,
    cols: [
      { name: 'e0', type: c.type },
      { name: 'e1', type: c.type },
      { name: 'e2', type: c.type },
      { name: 'e3', type: 'numeric' },
      { name: 'e4', type: 'float8' },
      { name: 'e5', type: c.type },
    ],
  };
}

/** abs, length, GREATEST/LEAST, IS [NOT] DISTINCT FROM, IN / NOT IN lists (a NULL in one); unknowns kept apart by a CASE. */
function sqlFuncs({ spec, x, nums }: Ctx): Out | undefined {
  const items: string[] = [];
  const cols: Col[] = [];
  const c = nums.length > 0 ? pick(nums, spec.c) : undefined;
  if (c) {
    const list = `${spec.d}, 1, -2`;
    items.push(
      `abs(${c.name}) AS f0`,
      `CASE WHEN ${c.name} IN (${list}) THEN 1 WHEN ${c.name} NOT IN (${list}) THEN 0 END AS f1`,
      `CASE WHEN ${c.name} NOT IN (0, NULL) THEN 1 WHEN ${c.name} IN (3, ${spec.d}) THEN 0 END AS f2`,
    );
    cols.push({ name: 'f0', type: c.type }, { name: 'f1', type: 'int' }, { name: 'f2', type: 'int' });
    // Equal values of two spellings (t2's 1.0 and 1.00, 0 and -0): the first argument's stays.
    items.push(
      `GREATEST(${c.name}, ${spec.d}, NULL) AS f5`,
      // A tie on every row: -0 + 0 is 0, so LEAST(-0, 0) must keep -0, the first.
      `LEAST(${c.name}, ${c.name} + 0, 0) AS f6`,
      `CASE WHEN ${c.name} IS DISTINCT FROM ${spec.d} THEN 1 WHEN ${c.name} IS NOT DISTINCT FROM 0 THEN 0 END AS f7`,
    );
    cols.push({ name: 'f5', type: c.type }, { name: 'f6', type: c.type }, { name: 'f7', type: 'int' });
  }
  const t = ofType(x, ['text'])[0];
  if (t) {
    items.push(
      `length(${t.name}) AS f3`,
      `CASE WHEN ${t.name} IN ('a', 'é', '😀') THEN char_length(${t.name}) ELSE -1 END AS f4`,
      `LEAST(${t.name}, 'b') AS f8`,
    );
    cols.push({ name: 'f3', type: 'int' }, { name: 'f4', type: 'int' }, { name: 'f8', type: 'text' });
  }
  if (items.length === 0) return undefined;
  return { sql: `SELECT ${items.join(', ')} FROM ${x.name}`, cols };
}

function sqlLeft({ spec, x, y, any }: Ctx): Out | undefined {
  // Join on columns of one family: numbers with numbers, text with text.
  const cx = any;
  const family = cx.type === 'text' ? ['text' as ColType] : NUMBERS;
  const cands = ofType(y, family);
  if (cands.length === 0) return undefined;
  const cy = pick(cands, spec.d + 1);
  const join = spec.shape === 'join' ? 'JOIN' : 'LEFT JOIN';
  const cols = [
    ...x.cols.map((c) => ({ ...c, name: `l_${c.name}` })),
    ...y.cols.map((c) => ({ ...c, name: `r_${c.name}` })),
  ];
  const list = [...x.cols.map((c) => `x.${c.name} AS l_${c.name}`), ...y.cols.map((c) => `y.${c.name} AS r_${c.name}`)];
  return {
    sql: `SELECT ${list.join(', ')} FROM ${x.name} x ${join} ${y.name} y ON x.${cx.name} = y.${cy.name}`,
    cols,
  };
}

/** The columns sqlGlobal's aggregates give, for an argument of type `t`. */
function aggregateColumns(t: ColType, sums: boolean, integral: boolean): Col[] {
  const sumType: ColType = t === 'int' ? 'bigint' : 'numeric';
  return [
    { name: 'n', type: 'bigint' },
    { name: 'nc', type: 'bigint' },
    ...(t !== 'float8' && t !== 'numeric'
      ? [
          { name: 'mn', type: t },
          { name: 'mx', type: t },
        ]
      : []),
    ...(sums
      ? [
          { name: 's', type: sumType },
          { name: 'av', type: 'numeric' as ColType },
        ]
      : []),
    { name: 'nd', type: 'bigint' },
    ...(integral ? [{ name: 'sd', type: sumType }] : []),
    { name: 'nf', type: 'bigint' },
    ...(sums ? [{ name: 'sf', type: sumType }] : []),
  ];
}

function sqlGlobal({ spec, x }: Ctx): Out | undefined {
  const keys = ofType(x, ['int', 'bigint', 'text']);
  const g = pick(keys.length > 0 ? keys : x.cols, spec.c);
  const of = pick(x.cols, spec.b);
  const sums = of.type !== 'text' && of.type !== 'float8';
  const integral = of.type === 'int' || of.type === 'bigint';
  const aggs = [
    `count(*) AS n`,
    `count(${of.name}) AS nc`,
    ...(of.type !== 'float8' && of.type !== 'numeric' ? [`min(${of.name}) AS mn`, `max(${of.name}) AS mx`] : []),
    ...(sums ? [`sum(${of.name}) AS s`, `avg(${of.name}) AS av`] : []),
    `count(DISTINCT ${of.name}) AS nd`,
    ...(integral ? [`sum(DISTINCT ${of.name}) AS sd`] : []),
    `count(*) FILTER (WHERE ${of.name} IS NULL) AS nf`,
    ...(sums ? [`sum(${of.name}) FILTER (WHERE ${of.name} > 0) AS sf`] : []),
  ];
  const aggCols = aggregateColumns(of.type, sums, integral);
  if (spec.shape === 'global') return { sql: `SELECT ${aggs.join(', ')} FROM ${x.name}`, cols: aggCols };
  const having = spec.shape === 'having' ? ` HAVING count(*) > ${Math.max(spec.d, 1)}` : '';
  return {
    sql: `SELECT ${g.name} AS g, ${aggs.join(', ')} FROM ${x.name} GROUP BY ${g.name}${having}`,
    cols: [{ name: 'g', type: g.type }, ...aggCols],
  };
}

function sqlDistinct({ spec, x }: Ctx): Out | undefined {
  const keys = ofType(x, ['int', 'bigint', 'text']);
  if (keys.length === 0) return undefined;
  const [c0, c1] = [pick(keys, spec.c), pick(keys, spec.b)];
  return {
    sql: `SELECT DISTINCT ${c0.name} AS d0, ${c1.name} AS d1 FROM ${x.name}`,
    cols: [
      { ...c0, name: 'd0' },
      { ...c1, name: 'd1' },
    ],
  };
}

function sqlUnion({ spec, x, y }: Ctx): Out | undefined {
  const [ix, iy] = [ofType(x, ['int', 'bigint']), ofType(y, ['int', 'bigint'])];
  if (ix.length === 0 || iy.length === 0) return undefined;
  const [cx, cy] = [pick(ix, spec.c), pick(iy, spec.b)];
  const type: ColType = cx.type === 'bigint' || cy.type === 'bigint' ? 'bigint' : 'int';
  return {
    // An odd d: UNION (distinct rows), else UNION ALL.
    sql: `SELECT ${cx.name} AS u0 FROM ${x.name} WHERE ${cx.name} > ${spec.d} ${spec.d % 2 === 1 ? 'UNION' : 'UNION ALL'} SELECT ${cy.name} FROM ${y.name}`,
    cols: [{ name: 'u0', type }],
  };
}

function sqlLike({ x }: Ctx): Out | undefined {
  const t = ofType(x, ['text'])[0];
  if (!t) return undefined;
  // ILIKE: LIKE itself is native (like.property.test.ts); its case-insensitive form is PGlite's.
  return { sql: `SELECT * FROM ${x.name} WHERE ${t.name} ILIKE 'a%'`, cols: x.cols };
}

function sqlFloatsum({ x }: Ctx): Out | undefined {
  const f = ofType(x, ['float8'])[0];
  if (!f) return undefined;
  return {
    sql: `SELECT count(*) AS n, sum(${f.name}) AS s FROM ${x.name}`,
    cols: [
      { name: 'n', type: 'bigint' },
      { name: 's', type: 'float8' },
    ],
  };
}

const BY_SHAPE: Record<ViewSpec['shape'], (ctx: Ctx) => Out | undefined> = {
  filter: sqlFilter,
  arith: sqlArith,
  exprs: sqlExprs,
  join: sqlLeft,
  left: sqlLeft,
  group: sqlGlobal,
  having: sqlGlobal,
  global: sqlGlobal,
  distinct: sqlDistinct,
  union: sqlUnion,
  like: sqlLike,
  floatsum: sqlFloatsum,
  funcs: sqlFuncs,
};

/** A view's SELECT over the relations so far, or undefined when the relations lack the columns. */
function select(spec: ViewSpec, rels: Rel[]): Out | undefined {
  const x = pick(rels, spec.a);
  const y = pick(rels, spec.b);
  const any = pick(x.cols, spec.c);
  const ints = ofType(x, ['int', 'bigint']);
  const nums = ofType(x, NUMBERS);
  return BY_SHAPE[spec.shape]({ spec, x, y, any, ints, nums });
}

export interface Program {
  sql: string;
  views: { name: string; sql: string; materialized: boolean }[];
}

export function buildNativeProgram(specs: readonly ViewSpec[]): Program {
  const rels = [...NATIVE_TABLES];
  const views: Program['views'] = [];
  for (const spec of specs) {
    const out = select(spec, rels);
    if (!out) continue;
    const name = `v${views.length}`;
    views.push({ name, sql: out.sql, materialized: spec.materialized });
    rels.push({ name, cols: out.cols });
  }
  const viewSql = views.map((v) => `CREATE ${v.materialized ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS ${v.sql};`);
  return { sql: [NATIVE_TABLES_SQL, ...viewSql].join('\n'), views };
}

/** One change: t1 rows inserted or (present ones) deleted; t2 upserted or deleted by key. */
export interface NativeOp {
  table: 't1' | 't2';
  insert: boolean;
  k: number;
  v: number;
  which: number;
  weight: number;
  nulls: number;
}
export const nativeOp: fc.Arbitrary<NativeOp> = fc.record({
  table: fc.constantFrom('t1' as const, 't2' as const),
  insert: fc.boolean(),
  k: fc.integer({ min: 0, max: 3 }),
  v: fc.nat(1000),
  which: fc.nat(50),
  weight: fc.constantFrom(1, 1, 1, 2),
  nulls: fc.nat(63),
});
export const nativeSteps = fc.array(fc.array(nativeOp, { maxLength: 8 }), { minLength: 1, maxLength: 6 });

/** The row an op writes: the values chosen from the edge lists by its numbers, some NULL. */
export function rowOf(o: NativeOp): Record<string, string | number | null> {
  // Edge values (the first ones of each list are ordinary) one time in four: an overflow ends a run.
  const at = <T>(list: readonly T[], salt: number) => {
    const i = (o.v * 7 + salt * 13) % list.length;
    return list[o.v % 4 === 0 ? i : i % 4]!;
  };
  const nul = (bit: number) => (o.nulls >> bit) % 2 === 1 && (o.nulls & 7) === 0;
  const val = <T>(bit: number, v: T) => (nul(bit) ? null : v);
  if (o.table === 't2')
    return {
      k: o.k,
      w: val(3, at(VALUES.int, 1)),
      n: val(4, at(VALUES.t2n, 2)),
      f: val(5, at(VALUES.t2f, 3)),
      s: val(3, at(VALUES.text, 4)),
    };
  return {
    k: val(5, o.k),
    v: val(3, at(VALUES.int, 1)),
    b: val(4, at(VALUES.bigint, 2)),
    n: val(5, at(VALUES.t1n, 3)),
    f: val(3, at(VALUES.t1f, 4)),
    s: val(4, at(VALUES.text, 5)),
  };
}
