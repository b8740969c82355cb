import { loadModule } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { SourceMap } from './source-map.js';
import { splitProgram } from './split.js';

// The splitter and the position map on their own: the edges a regex would get wrong.

beforeAll(() => loadModule());

const split = (program: string) => splitProgram(program, new SourceMap(program));
const texts = (program: string) => split(program).statements.map((s) => s.sql);

describe('splitProgram', () => {
  it.each([
    [
      'semicolons in strings, dollar quotes and comments',
      "SELECT 'a;b'; SELECT $x$ ; $x$; -- c;\nSELECT 1 /* ; /* nested ; */ */",
      ["SELECT 'a;b'", 'SELECT $x$ ; $x$', 'SELECT 1'],
    ],
    [
      'quoted identifiers with semicolons',
      'CREATE TABLE "a;b" (x int);SELECT 2',
      ['CREATE TABLE "a;b" (x int)', 'SELECT 2'],
    ],
    ['empty statements', ';;  ;\n', []],
    ['escape strings', "SELECT E'it\\'s;'; SELECT 3", ["SELECT E'it\\'s;'", 'SELECT 3']],
  ])('%s', (_name, program, expected) => {
    expect(texts(program)).toEqual(expected);
  });

  it('a character outside the BMP (an emoji) before the properties does not shift them', () => {
    const program = `CREATE TABLE t ("😁❤" varchar, "é" int) WITH ('materialized'='true');`;
    const [table] = split(program).statements;
    expect(table?.properties).toEqual({ materialized: 'true' });
    expect(table?.sql.trim()).toBe('CREATE TABLE t ("😁❤" varchar, "é" int)');
    expect(new SourceMap(program).charOf(Buffer.byteLength('CREATE TABLE t ("😁'))).toBe('CREATE TABLE t ("😁'.length);
  });

  it('blanks properties in place and keeps every other position', () => {
    const program = "CREATE TABLE t (x int) WITH ('a' = '1', 'it''s' = 'q''d');\nCREATE VIEW v AS SELECT x FROM t;";
    const [table, view] = split(program).statements;
    expect(table?.properties).toEqual({ a: '1', "it's": "q'd" });
    expect(table?.sql).toBe(`CREATE TABLE t (x int)${' '.repeat(program.indexOf(';') - 22)}`);
    expect(table?.sql).toHaveLength(program.indexOf(';'));
    expect(view?.start).toBe(program.indexOf('CREATE VIEW'));
    expect(view?.properties).toBeUndefined();
  });

  it('keeps Postgres storage parameters and CTEs, which are not properties', () => {
    const [table, view] = split(
      'CREATE TABLE t (x int) WITH (fillfactor = 70); CREATE VIEW v AS WITH c AS (SELECT 1) SELECT * FROM c',
    ).statements;
    expect(table?.properties).toBeUndefined();
    expect(table?.sql).toContain('fillfactor');
    expect(view?.sql).toContain('WITH c AS');
  });

  it('keeps multi-line properties on their lines', () => {
    const program = "CREATE TABLE t (x int)\nWITH (\n  'k' = 'v'\n);\nSELECT nope;";
    const { statements } = split(program);
    expect(statements[0]?.sql.split('\n')).toHaveLength(4);
    expect(statements[1]?.start).toBe(program.indexOf('SELECT'));
  });

  it('maps the scanner byte offsets of non-ASCII programs to characters', () => {
    const program = "SELECT 'é漢'; SELECT ü";
    const [, second] = split(program).statements;
    expect(second?.start).toBe(program.indexOf('SELECT ü'));
    expect(second?.sql).toBe('SELECT ü');
  });

  it('treats an unterminated quote as one statement for Postgres to report', () => {
    const result = split("CREATE TABLE t (x int);\nSELECT 'oops");
    expect(result.scanFailed).toBe(true);
    expect(result.statements).toHaveLength(1);
  });
});

describe('SourceMap', () => {
  it('gives 1-based lines and columns and a caret snippet', () => {
    const map = new SourceMap('ab\r\ncd\nefg');
    expect(map.lineColumn(0)).toEqual({ line: 1, column: 1 });
    expect(map.lineColumn(5)).toEqual({ line: 2, column: 2 });
    expect(map.lineColumn(9)).toEqual({ line: 3, column: 3 });
    expect(map.snippet({ line: 3, column: 2 }, { line: 3, column: 3 })).toBe('efg\n ^^');
    expect(map.snippet({ line: 1, column: 1 }, { line: 1, column: 1 })).toBe('ab\n^');
  });
});
