import fc from 'fast-check';

// Random programs for the engine's property test, from a grammar of the shapes the engine
// maintains: filter, project, inner and left joins, GROUP BY with COUNT/SUM/AVG/MIN/MAX (and a
// global aggregate), DISTINCT, UNION ALL, each over the two tables or over earlier views. Small
// value domains make joins match, groups collide and rows repeat.

export interface Rel {
  name: string;
  cols: string[];
}

export const TABLES: Rel[] = [
  { name: 't1', cols: ['k', 'v'] },
  { name: 't2', cols: ['k', 'w'] },
];
export const TABLES_SQL = `CREATE TABLE t1 (k int, v int);
CREATE TABLE t2 (k int PRIMARY KEY, w int);`;

const SHAPES = ['filter', 'project', 'join', 'left', 'group', 'global', 'distinct', 'union'] as const;
export interface ViewSpec {
  shape: (typeof SHAPES)[number];
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  materialized: boolean;
}

export const viewSpec: fc.Arbitrary<ViewSpec> = fc.record({
  shape: fc.constantFrom(...SHAPES),
  a: fc.nat(20),
  b: fc.nat(20),
  c: fc.nat(20),
  d: fc.integer({ min: -1, max: 4 }),
  e: fc.nat(20),
  materialized: fc.boolean(),
});

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** The view's SELECT and its output columns, over the relations defined so far. */
function select(spec: ViewSpec, rels: Rel[]): { sql: string; cols: string[] } {
  const x = pick(rels, spec.a);
  const y = pick(rels, spec.b);
  const cx = pick(x.cols, spec.c);
  const cy = pick(y.cols, spec.e);
  switch (spec.shape) {
    case 'filter':
      return { sql: `SELECT * FROM ${x.name} WHERE ${cx} > ${spec.d}`, cols: x.cols };
    case 'project':
      return { sql: `SELECT ${cx} AS p0, ${cx} + ${pick(x.cols, spec.e)} AS p1 FROM ${x.name}`, cols: ['p0', 'p1'] };
    case 'join':
    case 'left': {
      const join = spec.shape === 'join' ? 'JOIN' : 'LEFT JOIN';
      const cols = [...x.cols.map((c) => `l_${c}`), ...y.cols.map((c) => `r_${c}`)];
      const list = [...x.cols.map((c) => `x.${c} AS l_${c}`), ...y.cols.map((c) => `y.${c} AS r_${c}`)];
      return { sql: `SELECT ${list.join(', ')} FROM ${x.name} x ${join} ${y.name} y ON x.${cx} = y.${cy}`, cols };
    }
    case 'group':
    case 'global': {
      const of = pick(x.cols, spec.e);
      const agg = `COUNT(*) AS n, COUNT(${of}) AS nc, SUM(${of}) AS s, MIN(${of}) AS mn, MAX(${of}) AS mx, AVG(${of}) AS av`;
      const cols = ['n', 'nc', 's', 'mn', 'mx', 'av'];
      return spec.shape === 'group'
        ? { sql: `SELECT ${cx} AS g, ${agg} FROM ${x.name} GROUP BY ${cx}`, cols: ['g', ...cols] }
        : { sql: `SELECT ${agg} FROM ${x.name}`, cols };
    }
    case 'distinct':
      return { sql: `SELECT DISTINCT ${cx} AS d0, ${pick(x.cols, spec.e)} AS d1 FROM ${x.name}`, cols: ['d0', 'd1'] };
    case 'union':
      return {
        sql: `SELECT ${cx} AS u0 FROM ${x.name} WHERE ${cx} > ${spec.d} UNION ALL SELECT ${cy} FROM ${y.name}`,
        cols: ['u0'],
      };
  }
}

export interface Program {
  sql: string;
  views: { name: string; sql: string; materialized: boolean }[];
}

export function buildProgram(specs: readonly ViewSpec[]): Program {
  const rels = [...TABLES];
  const views: Program['views'] = [];
  specs.forEach((spec, i) => {
    const { sql, cols } = select(spec, rels);
    const name = `v${i}`;
    views.push({ name, sql, materialized: spec.materialized });
    rels.push({ name, cols });
  });
  const viewSql = views.map((v) => `CREATE ${v.materialized ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS ${v.sql};`);
  return { sql: [TABLES_SQL, ...viewSql].join('\n'), views };
}

/** One change a step buffers: t1 is a multiset, t2 has a primary key (upserts, deletes by key). */
export interface Op {
  table: 't1' | 't2';
  insert: boolean;
  k: number;
  x: number | null;
  /** Deletes of t1: which present row (modulo the count), or an absent one when none is. */
  which: number;
  weight: number;
}

export const op: fc.Arbitrary<Op> = fc.record({
  table: fc.constantFrom('t1' as const, 't2' as const),
  insert: fc.boolean(),
  k: fc.integer({ min: 0, max: 3 }),
  x: fc.option(fc.integer({ min: -2, max: 5 }), { nil: null, freq: 5 }),
  which: fc.nat(50),
  weight: fc.constantFrom(1, 1, 1, 2),
});

export const steps = fc.array(fc.array(op, { maxLength: 8 }), { minLength: 1, maxLength: 6 });
