import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FailureRecap } from './failure-recap.js';

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

/** The lines a real vitest run of `files` prints (with colours, as in CI), and its exit code. */
async function vitestOutput(dir: string, files: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const run = promisify(execFile)(process.execPath, [VITEST, 'run', '--root', dir], {
    env: { ...process.env, FORCE_COLOR: '1' },
  });
  const { stdout, stderr, code } = await run.then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => e,
  );
  return { code, lines: `${stdout}\n${stderr}`.split('\n') };
}

function recapOf(lines: string[]): string[] {
  const recap = new FailureRecap();
  for (const line of lines) recap.add(line);
  return recap.lines();
}

describe('the failure recap of a vitest run', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-recap-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('names the failed test, the file that did not load and the leaked rejection, without library frames', async () => {
    const { code, lines } = await vitestOutput(dir, {
      'a.test.ts': `import { test, expect } from 'vitest';
test('passes', () => expect(1).toBe(1));
test('fails here', () => expect({ a: 1 }).toEqual({ a: 2 }));
`,
      'b.test.ts': `import { test } from 'vitest';
test('leaks a rejection', async () => {
  void Promise.reject(new Error('left behind'));
  await new Promise((r) => setTimeout(r, 50));
});
`,
      'c.test.ts': `import './missing-module.js';\n`,
    });
    expect(code).toBe(1);
    const text = recapOf(lines).join('\n');
    expect(text).toContain('× fails here');
    expect(text).toContain('AssertionError: expected { a: 1 } to deeply equal { a: 2 }');
    expect(text).toContain("Cannot find module './missing-module.js'");
    expect(text).toContain('Error: left behind');
    expect(text).toMatch(/Test Files\s+2 failed \| 1 passed \(3\)/);
    expect(text).not.toContain('node_modules/');
    expect(text).not.toContain('\x1b[');
  });

  test('falls back to the last lines when the run printed no failure section', () => {
    const lines = [...Array.from({ length: 100 }, (_, i) => `line ${i}`), 'Error: the global setup threw'];
    const recap = recapOf(lines);
    expect(recap[0]).toMatch(/no failure section/);
    expect(recap.at(-1)).toBe('Error: the global setup threw');
    expect(recap).not.toContain('line 10');
  });

  test('keeps a long section to its limit and says how much it left out', () => {
    const recap = new FailureRecap({ marks: 2, sections: 5, tail: 3 });
    for (const line of ['⎯⎯⎯ Failed Tests 9 ⎯⎯⎯', ...Array.from({ length: 20 }, (_, i) => `detail ${i}`)])
      recap.add(line);
    recap.add(' Test Files  1 failed (1)');
    expect(recap.lines()).toEqual([
      '⎯⎯⎯ Failed Tests 9 ⎯⎯⎯',
      'detail 0',
      'detail 1',
      'detail 2',
      'detail 3',
      '… 16 more lines in the output above',
      'Test Files  1 failed (1)',
    ]);
  });
});
