import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { staleOutputs } from '../../src/runner/backends/local/build-freshness.js';

/**
 * The suites that start `svc` as a process run the build in dist/ (dist/cli.js, and the pipeline
 * processes a runner from source starts). Rebuilt here when older than the source, so that
 * `npx vitest run --project api` without `npm run build` tests the code as it is, not the last build.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const stale = staleOutputs(`${root}src`, `${root}dist`);
  if (stale.length === 0) return;
  process.stderr.write(`dist/ is older than src/ (${stale.length} files): npm run build\n`);
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
