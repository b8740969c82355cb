import { parseSync } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModule } from 'libpg-query';
import { compile, type Node } from './compile.js';
import { finite, parseNumeric } from './numeric.js';
import { FLOAT8, INT4, NUMERIC, type SqlType, TEXT, type Value } from './types.js';

// Ties and NULLs of GREATEST/LEAST and IS [NOT] DISTINCT FROM, which random values rarely meet:
// each expected value is what PostgreSQL (PGlite) gives for the same expression (NULLs typed, as the
// canonical text spells them).

const COLUMNS: Record<string, [number, SqlType]> = { f: [0, FLOAT8], n: [1, NUMERIC], i: [2, INT4], s: [3, TEXT] };
const evaluate = (expr: string, row: Value[]): Value => {
  const stmt = (parseSync(`SELECT ${expr}`) as { stmts: { stmt: Node }[] }).stmts[0]!.stmt;
  const target = ((stmt['SelectStmt'] as Node)['targetList'] as Node[])[0]!['ResTarget'] as Node;
  const compiled = compile(target['val'] as Node, {
    column: ([name]) => {
      const [index, type] = COLUMNS[name!]!;
      return { index, type };
    },
  });
  return compiled.eval(row);
};

beforeAll(() => loadModule());

describe('GREATEST and LEAST', () => {
  it('keep the first of equal values (PostgreSQL: -0, 1.0, 1.00) and skip NULLs', () => {
    expect(Object.is(evaluate(`LEAST(f, f + 0, 0)`, [-0, null, null, null]), -0)).toBe(true);
    expect(evaluate(`GREATEST(n, n + 0.00, NULL::numeric)`, [null, finite(10n, 1), null, null])).toEqual(
      finite(10n, 1),
    );
    expect(evaluate(`LEAST(n, 1.0)`, [null, finite(100n, 2), null, null])).toEqual(finite(100n, 2));
    expect(evaluate(`GREATEST(n, 'Infinity'::numeric)`, [null, parseNumeric('NaN'), null, null])).toEqual(
      parseNumeric('NaN'),
    );
    expect(evaluate(`GREATEST(i, NULL::integer, 3)`, [null, null, null, null])).toBe(3);
    expect(evaluate(`LEAST(s, 'b'::text)`, [null, null, null, 'é'])).toBe('b');
  });
});

describe('IS [NOT] DISTINCT FROM', () => {
  it('compares NULLs as values', () => {
    expect(evaluate(`i IS DISTINCT FROM NULL::integer`, [null, null, null, null])).toBe(false);
    expect(evaluate(`i IS DISTINCT FROM NULL::integer`, [null, null, 1, null])).toBe(true);
    expect(evaluate(`i IS NOT DISTINCT FROM 2.0`, [null, null, 2, null])).toBe(true);
    expect(evaluate(`i IS NOT DISTINCT FROM 3`, [null, null, null, null])).toBe(false);
  });
});
