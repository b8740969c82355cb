import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuildCurrent, staleOutputs } from './build-freshness.js';

describe('build freshness (real files)', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-build-'));
  const src = join(root, 'src');
  const dist = join(root, 'dist');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const file = (path: string, secondsAgo: number) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    const at = Date.now() / 1000 - secondsAgo;
    utimesSync(path, at, at);
  };

  it('names the sources whose output is missing or older; tests and fixtures are not built', () => {
    file(join(src, 'cli.ts'), 100);
    file(join(dist, 'cli.js'), 50);
    file(join(src, 'store', 'open.ts'), 10);
    file(join(dist, 'store', 'open.js'), 50);
    file(join(src, 'store', 'migrations', '001.sql'), 100);
    file(join(src, 'store', 'open.test.ts'), 1);
    file(join(src, 'store', 'row.fixture.ts'), 1);
    expect(staleOutputs(src, dist).sort()).toEqual(['store/migrations/001.sql', 'store/open.ts']);
    expect(() => assertBuildCurrent(src, dist)).toThrow(
      /older than the source \(.*store\/open\.ts.*\): run `npm run build`/,
    );
  });

  it('is quiet once every output is at least as new as its source', () => {
    file(join(dist, 'store', 'open.js'), 0);
    file(join(dist, 'store', 'migrations', '001.sql'), 0);
    expect(staleOutputs(src, dist)).toEqual([]);
    expect(() => assertBuildCurrent(src, dist)).not.toThrow();
  });
});
