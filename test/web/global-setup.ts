import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// After build-global-setup (dist/ current with src/): dist/web current with web/, rebuilt when a
// file of the console is newer than its built index.html; then the browser the tests drive.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';

function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (Debian's; .ci/run installs it)`);
  }
  const built = statSync(join(ROOT, 'dist/web/index.html'), { throwIfNoEntry: false });
  if (built && built.mtimeMs >= newestUnder(join(ROOT, 'web'))) return;
  process.stderr.write('dist/web is older than web/: npm run build\n');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
