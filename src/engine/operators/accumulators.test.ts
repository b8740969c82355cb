import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../../pglite/initdb-dump.js';
import { engineDump } from '../../pglite/shipped-dump.js';
import { parseNumeric, numericText, type Numeric } from '../expressions/numeric.js';
import { NUMERIC, INT4, type Value } from '../expressions/types.js';
import { aggregateKind } from './accumulators.js';

// Accumulators against PostgreSQL's own aggregates over the same values, after inserts and deletes:
// the result scale of a numeric SUM/AVG follows the values held, not the ones once seen.

const text = (v: Value): string | null =>
  v === null ? null : typeof v === 'object' ? numericText(v as Numeric) : String(v);

describe('accumulators equal PostgreSQL', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
  }, 60_000);
  afterAll(() => db?.close());

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
        await db.query<{ r: string | null }>(`SELECT ${name}(x)::text AS r FROM unnest($1::${type}[]) x`, [left])
      ).rows;
      expect(text(acc.result()), `${name}`).toBe(row!.r);
    }
  });
});
