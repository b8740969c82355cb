import { describe, expect, it } from 'vitest';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { parseNumeric, numericText, type Numeric } from '../expressions/numeric.js';
import { FLOAT8, INT4, NUMERIC, TEXT, type Value } from '../expressions/types.js';
import { aggregateKind } from './accumulators.js';

// Accumulators against PostgreSQL's own aggregates over the same values, after inserts and deletes:
// the result scale of a numeric SUM/AVG follows the values held, not the ones once seen.

const text = (v: Value): string | null =>
  v === null ? null : typeof v === 'object' ? numericText(v as Numeric) : String(v);

describe('accumulators equal PostgreSQL', () => {
  const oracle = oracleDb();

  const cases: [string, string[], string[]][] = [
    ['numeric', ['1.5', '2.125', '3'], ['2.125']],
    ['numeric', ['1.5', 'NaN', '2'], ['NaN']],
    ['numeric', ['Infinity', '-Infinity', '2'], ['-Infinity']],
    ['numeric', ['123456789012345678901234567890.12', '0.1', '-3'], []],
    ['numeric', ['7', '1.000'], ['7', '1.000']],
    ['integer', ['2147483647', '2147483647', '-1'], ['-1']],
  ];
  it.each(cases)('sum and avg of %s %j less %j', async (type, values, deleted) => {
    const t = type === 'numeric' ? NUMERIC : INT4;
    const parse = (s: string): Value => (type === 'numeric' ? parseNumeric(s) : Number(s));
    for (const name of ['sum', 'avg', 'count']) {
      const acc = aggregateKind(name, t).make();
      for (const v of values) acc.add(parse(v), 1);
      for (const v of deleted) acc.add(parse(v), -1);
      const left = [...values];
      for (const d of deleted) left.splice(left.indexOf(d), 1);
      const [row] = (
        await oracle().query<{ r: string | null }>(`SELECT ${name}(x)::text AS r FROM unnest($1::${type}[]) x`, [left])
      ).rows;
      expect(text(acc.result()), `${name}`).toBe(row!.r);
    }
  });

  // DISTINCT by SQL equality: 1.0 = 1.00, -0 = 0, NaN = NaN; a value counts while any copy of it is
  // held, and a step may take its copies through 0 (a delete met before the insert that replaces it).
  const distinct: [string, string[], string[]][] = [
    ['numeric', ['1.0', '1.00', '2', 'NaN', 'NaN', '-0.0'], ['1.00']],
    ['numeric', ['1.0', '1.00', '0', '-0.00'], ['1.0', '1.00']],
    ['float8', ['0', '-0', 'NaN', 'NaN', '1.5', 'Infinity'], ['1.5']],
    ['integer', ['3', '3', '-7', '2147483647', '2147483647'], ['3']],
    ['text', ['a', 'A', 'a', '', 'é'], ['a', 'a']],
  ];
  it.each(distinct)('count(DISTINCT) of %s %j less %j, and sum/avg of integers', async (type, values, deleted) => {
    const t = { numeric: NUMERIC, integer: INT4, float8: FLOAT8, text: TEXT }[type]!;
    const parse = (s: string): Value => (type === 'numeric' ? parseNumeric(s) : type === 'text' ? s : Number(s));
    const left = [...values];
    for (const d of deleted) left.splice(left.indexOf(d), 1);
    for (const name of type === 'integer' ? ['count', 'sum', 'avg'] : ['count']) {
      const acc = aggregateKind(name, t, true).make();
      // The deletes first: copies go below 0 before the inserts bring them back.
      for (const v of deleted) acc.add(parse(v), -1);
      for (const v of values) acc.add(parse(v), 1);
      const [row] = (
        await oracle().query<{ r: string | null }>(
          `SELECT ${name}(DISTINCT x)::text AS r FROM unnest($1::${type}[]) x`,
          [left],
        )
      ).rows;
      expect(text(acc.result()), name).toBe(row!.r);
      // And the same from its checkpoint state.
      const back = aggregateKind(name, t, true).make();
      back.load(acc.save());
      for (const more of acc.saveMore?.() ?? []) back.loadMore?.(more);
      expect(text(back.result()), `${name} resumed`).toBe(row!.r);
    }
  });

  it('refuses SUM/AVG(DISTINCT) of a numeric: which of equal spellings it sums is PostgreSQL’s sort’s', () => {
    expect(() => aggregateKind('sum', NUMERIC, true)).toThrow(/sum\(DISTINCT numeric\)/);
    expect(aggregateKind('max', TEXT, true).type).toEqual(TEXT);
  });
});
