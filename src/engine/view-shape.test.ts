import { loadModule } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { viewShape } from './view-shape.js';

// Which rule keeps which shape (texts as pg_get_viewdef prints them).

const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const rule = (sql: string) => viewShape(sql, AGGREGATES);

describe('viewShape', () => {
  beforeAll(() => loadModule());

  it.each([
    ['SELECT k, v FROM t1 WHERE (v > 1);', 'linear'],
    ['SELECT x.k AS l_k, y.w FROM (t1 x JOIN t2 y ON ((x.k = y.k)));', 'linear'],
    ['SELECT t1.k FROM t1 WHERE (t1.k > 1) UNION ALL SELECT t2.w AS k FROM t2 UNION ALL SELECT a.k FROM a;', 'linear'],
    ['SELECT k AS g, count(*) AS n, avg(v) AS avg FROM t1 WHERE (v > 0) GROUP BY k;', 'group'],
    ['SELECT DISTINCT k, v FROM a;', 'group'],
    ['SELECT count(*) AS n FROM t1;', 'recompute'],
    ['SELECT x.k, y.w FROM (t1 x LEFT JOIN t2 y ON ((x.k = y.k)));', 'group'],
    ['SELECT x.v, y.w FROM (t1 x LEFT JOIN t2 y ON ((x.k = y.k)));', 'recompute'],
    ['SELECT x.k FROM (t1 x LEFT JOIN t2 y ON ((x.k > y.k)));', 'recompute'],
    ['SELECT x.k FROM (t1 x FULL JOIN t2 y ON ((x.k = y.k)));', 'recompute'],
    ['SELECT k FROM t1 UNION SELECT w FROM t2;', 'recompute'],
    ['SELECT k FROM t1 WHERE (k IN ( SELECT t2.k FROM t2));', 'recompute'],
    ['SELECT k, row_number() OVER () AS rn FROM t1;', 'recompute'],
    ['SELECT (k + 1) AS g, sum(v) AS s FROM t1 GROUP BY (k + 1);', 'group'],
    ['SELECT sum(v) AS s FROM t1 GROUP BY k;', 'recompute'],
  ])('%s → %s', (sql, expected) => expect(rule(sql).rule).toBe(expected));

  it('finds the spans the rules splice into', () => {
    const shape = rule('SELECT x.k AS l_k, y.w FROM (t1 x JOIN t2 y ON ((x.k = y.k))) WHERE (y.w > 2);');
    if (shape.rule !== 'linear') throw new Error(shape.rule);
    const [core] = shape.arms;
    expect(core?.occurrences.map((o) => [o.relation, o.alias, core.text.slice(o.start, o.end)])).toEqual([
      ['t1', 'x', 't1'],
      ['t2', 'y', 't2'],
    ]);
    expect(core && core.text.slice(core.where!.start, core.where!.end).trim()).toBe('(y.w > 2)');
    expect(core?.equalities).toEqual([
      { alias: 'x', column: 'k' },
      { alias: 'y', column: 'k' },
    ]);
  });
});
