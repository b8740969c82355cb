import { loadModule } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { SourceMap } from './source-map.js';
import { splitProgram } from './split.js';

// The established dialect's surface as PostgreSQL runs it (dialect.ts through split.ts): what each
// construct becomes, and that a position in the translated text maps back into the user's program.

beforeAll(() => loadModule());

const one = (program: string) => {
  const { statements } = splitProgram(program, new SourceMap(program));
  expect(statements).toHaveLength(1);
  return statements[0]!;
};
const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('the established dialect, translated', () => {
  it('types: VARIANT, MAP<K,V> (nested), DOUBLE, TINYINT, STRING, VARBINARY(n), T ARRAY, WITH LOCAL TIME ZONE', () => {
    const s = one(
      'CREATE TABLE t (v VARIANT, m MAP<VARCHAR, MAP<INT, INT>>, d DOUBLE, p DOUBLE PRECISION, t TINYINT, s STRING, b VARBINARY(8), a INT ARRAY, z TIMESTAMP WITH LOCAL TIME ZONE)',
    );
    expect(squash(s.sql)).toBe(
      'CREATE TABLE t (v jsonb, m jsonb, d double precision, p DOUBLE PRECISION, t smallint, s text, b bytea, a INT [], z TIMESTAMP WITH TIME ZONE)',
    );
    expect(s.refusals).toEqual([]);
  });

  it('a MAP keeps its key and value types as written, where its jsonb is (nested maps whole)', () => {
    const s = one('CREATE TABLE t (m MAP<VARCHAR(10), MAP<INT, DOUBLE ARRAY>>, n MAP<STRING, DECIMAL(10, 2)>)');
    expect(s.maps.map(({ from, to, key, value }) => ({ at: s.sql.slice(from, to), key, value }))).toEqual([
      { at: 'jsonb', key: 'VARCHAR(10)', value: 'MAP<INT, DOUBLE ARRAY>' },
      { at: 'jsonb', key: 'STRING', value: 'DECIMAL(10, 2)' },
    ]);
  });

  it('casts translate; a column or alias that merely has a type name is left alone', () => {
    const s = one('CREATE VIEW w AS SELECT CAST(x AS VARIANT) AS variant, y::DOUBLE, ARRAY[1, 2] AS a FROM t');
    expect(squash(s.sql)).toBe(
      'CREATE VIEW w AS SELECT CAST(x AS jsonb) AS variant, y::double precision, ARRAY[1, 2] AS a FROM t',
    );
  });

  it('LATENESS and WATERMARK annotations are dropped, the constraints after them kept; a LATENESS statement is left out', () => {
    const program =
      "CREATE TABLE t (ts TIMESTAMP LATENESS INTERVAL '1' HOUR NOT NULL, u TIMESTAMP WATERMARK INTERVAL '5' MINUTE);\nLATENESS t.ts INTERVAL '1' HOUR;";
    const { statements } = splitProgram(program, new SourceMap(program));
    expect(statements).toHaveLength(1);
    expect(squash(statements[0]!.sql)).toBe('CREATE TABLE t (ts TIMESTAMP NOT NULL, u TIMESTAMP )');
  });

  it('CREATE LOCAL VIEW is a view', () => {
    expect(squash(one('CREATE LOCAL VIEW v AS SELECT 1').sql)).toBe('CREATE VIEW v AS SELECT 1');
  });

  it('maps positions in the translated text back into the program', () => {
    const program = 'CREATE TABLE m (k MAP<VARCHAR, INT>, q NOSUCHTYPE)';
    const s = one(program);
    const at = s.sql.indexOf('NOSUCHTYPE');
    expect(s.programOffset(at)).toBe(program.indexOf('NOSUCHTYPE'));
    // Inside a replacement: the start of what it replaced.
    expect(s.programOffset(s.sql.indexOf('jsonb') + 2)).toBe(program.indexOf('MAP'));
  });

  it('refuses what PostgreSQL has no equivalent of, naming the construct', () => {
    const program = "CREATE VIEW w AS SELECT * FROM TUMBLE(t, DESCRIPTOR(ts), INTERVAL '1' HOUR)";
    const [r] = one(program).refusals;
    expect(r?.construct).toBe('TUMBLE');
    expect(program.slice(r!.from, r!.to)).toBe('TUMBLE');
    expect(one('DECLARE RECURSIVE VIEW r (x INT)').refusals[0]?.construct).toBe('DECLARE RECURSIVE VIEW');
    expect(one('CREATE VIEW z AS SELECT 1 FROM a ASOF JOIN b ON a.x >= b.x').refusals[0]?.message).toMatch(
      /^ASOF JOIN is not supported/,
    );
  });

  it('properties stay blanked and untouched by the translation', () => {
    const s = one("CREATE TABLE t (x INT) WITH ('materialized' = 'true', 'note' = 'DOUBLE ARRAY')");
    expect(squash(s.sql)).toBe('CREATE TABLE t (x INT)');
    expect(s.properties).toEqual({ materialized: 'true', note: 'DOUBLE ARRAY' });
  });
});
