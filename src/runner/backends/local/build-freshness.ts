import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// Run from source (vitest, tsx), the local backend still starts pipeline processes from the build
// in dist/: there is no cli.js beside src/. A build older than the source would silently run old
// code, so the runner refuses to start with one (and the test setup rebuilds it first).

/** What `npm run build` puts in dist/: the compiled modules (not tests, not fixtures) and the migrations. */
const built = (name: string): boolean =>
  (name.endsWith('.ts') && !/\.(test|fixture|d)\.ts$/.test(name)) || name.endsWith('.sql');

/** The files of `srcDir` whose output in `distDir` is missing or older than they are. */
export function staleOutputs(srcDir: string, distDir: string): string[] {
  const stale: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (built(entry.name)) {
        const rel = relative(srcDir, path);
        const out = statSync(join(distDir, rel.replace(/\.ts$/, '.js')), { throwIfNoEntry: false });
        if (!out || out.mtimeMs < statSync(path).mtimeMs) stale.push(rel);
      }
    }
  };
  walk(srcDir);
  return stale;
}

/** Throws, naming the first stale files, unless dist/ is at least as new as src/. */
export function assertBuildCurrent(srcDir: string, distDir: string): void {
  const stale = staleOutputs(srcDir, distDir);
  if (stale.length === 0) return;
  const named = stale.slice(0, 3).join(', ') + (stale.length > 3 ? ` and ${stale.length - 3} more` : '');
  throw new Error(
    `pipeline processes start from ${join(distDir, 'cli.js')}, which is older than the source (${named}): run \`npm run build\``,
  );
}
