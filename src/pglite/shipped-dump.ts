import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The engine's initdb dump made by `npm run build` (scripts/engine-dump.mjs) and shipped in dist/
// beside the program, so that no pipeline start runs initdb: before, the first start on a data dir
// did (3 s on an idle 2-core machine, 11 s on a loaded one) and every Kubernetes pod did, since
// a pod has no dump of its own to keep. Absent when running from src/ (the tests' tsx): then the
// first start writes one, as before.

/** dist/engine-initdb.tar, seen from dist/pglite/shipped-dump.js. */
const SHIPPED = fileURLToPath(new URL('../engine-initdb.tar', import.meta.url));

/** The shipped engine dump's path, or undefined when this build has none. */
export function shippedEngineDump(): string | undefined {
  return existsSync(SHIPPED) ? SHIPPED : undefined;
}

/** Where the build writes it (scripts/engine-dump.mjs). */
export const SHIPPED_ENGINE_DUMP = SHIPPED;
