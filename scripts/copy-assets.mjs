// tsc compiles TypeScript only: the SQL migrations ship beside the compiled store module, and the
// build stamps the git revision that /v0/config reports.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, writeFileSync } from 'node:fs';

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
