// tsc compiles TypeScript only: the SQL migrations ship beside the compiled store module, and the
// build stamps the git revision that /v0/config reports. The migrations folder is replaced, not
// merged into: a migration renamed or renumbered in src left its old file in dist/, and the store
// then refused to start on two migrations of one number.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync, writeFileSync } from 'node:fs';

rmSync('dist/store/migrations', { recursive: true, force: true });
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
chmodSync('dist/cli.js', 0o755);

let revision = 'unknown';
try {
  revision = execFileSync('git', ['rev-parse', 'HEAD'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
} catch {
  // Not a git checkout (e.g. a source archive): the revision stays unknown.
}
writeFileSync('dist/build-info.json', `${JSON.stringify({ revision })}\n`);
