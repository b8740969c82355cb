import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viewsFollowTruth } from '../../../test/support/view-truth.js';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { openEngine } from '../open.js';
import { like } from './like.js';
import { SqlError } from './sql-error.js';

// LIKE against PostgreSQL's own, on texts and patterns of few characters where every special one
// is frequent: `%`, `_`, the escape `\` (a lone one at the end is an error only when the match gets
// there), characters beyond one UTF-16 unit (one `_` each), case, a newline.

const ALPHABET = ['a', 'b', 'A', 'é', '😀', '\n', '%', '_', '\\'];
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 7 }).map((cs) => cs.join(''));

/** What a LIKE gave: true, false, or the SQLSTATE of its error. */
function ours(t: string, p: string): boolean | string {
  try {
    return like(t, p);
  } catch (error) {
    if (error instanceof SqlError) return error.code;
    throw error;
  }
}

describe('LIKE', () => {
  const oracle = oracleDb();

  async function theirs(t: string, p: string): Promise<boolean | string> {
    try {
      return (await oracle().query<{ m: boolean }>('SELECT $1::text LIKE $2::text AS m', [t, p])).rows[0]!.m;
    } catch (error) {
      return String((error as { code?: unknown }).code);
    }
  }

  it('matches as PostgreSQL’s does, errors included', { timeout: 120_000 }, async () => {
    const examples: [string, string][] = [
      ['abc', 'x\\'],
      ['abc', 'a%\\'],
      ['', '%\\'],
      ['😀b', '_b'],
      ['a%b', 'a\\%b'],
      ['a\nb', 'a_b'],
      ['aXb', 'a%%_b'],
    ];
    await fc.assert(
      fc.asyncProperty(text, text, async (t, p) => {
        expect(ours(t, p), JSON.stringify([t, p])).toEqual(await theirs(t, p));
      }),
      { numRuns: 3_000, examples },
    );
  });

  it(
    'in a native view, equals PostgreSQL’s evaluation from scratch after every step',
    { timeout: 120_000 },
    async () => {
      // Patterns without a lone escape at the end: a step that fails is not this test's subject.
      const program = `CREATE TABLE t (s text, p text);
      CREATE MATERIALIZED VIEW v AS SELECT s, p, s LIKE p AS m FROM t WHERE s NOT LIKE '%\\%%' OR s LIKE '_';`;
      const engine = await openEngine(program);
      try {
        expect(engine.resolve('v', 'view')?.maintenance).toBe('native');
        const row = fc.record({ s: text, p: text.map((x) => x.replace(/\\+$/, '')) });
        await viewsFollowTruth(engine, 't', row, ['v'], 40);
      } finally {
        await engine.close();
      }
    },
  );
});
