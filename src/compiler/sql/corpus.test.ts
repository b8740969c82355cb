import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgramError, ProgramInfo } from '../../model/program.js';
import { compileSql } from './compile.js';
import { createScratch } from './scratch.js';

// The corpus: each test/programs/NN-name.sql has NN-name.expected.json, either
// `{ "program_info": …, "warnings": [...] }` or `{ "sql_compilation": … }`.

const DIR = new URL('../../../test/programs/', import.meta.url);
const programs = readdirSync(DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();
const scratch = createScratch();
// Opening the scratch PGlite (seconds on a loaded 2-core machine) is start-up work of its own:
// done here under its own bound, not by the first program inside vitest's 5 s test bound.
beforeAll(() => scratch.warm(), 120_000);
afterAll(() => scratch.close());

describe('SQL corpus', () => {
  it('has at least 30 programs', () => {
    expect(programs.length).toBeGreaterThanOrEqual(30);
  });

  it.each(programs)('%s', async (file) => {
    const program = readFileSync(new URL(file, DIR), 'utf8');
    const result = await compileSql(scratch, program);
    const actual = result.ok
      ? { program_info: ProgramInfo.parse(result.info), warnings: result.warnings }
      : {
          sql_compilation: ProgramError.parse({ sql_compilation: { exit_code: 1, messages: result.messages } })
            .sql_compilation,
        };
    const expectedFile = new URL(file.replace(/\.sql$/, '.expected.json'), DIR);
    expect(actual).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
  });
});
