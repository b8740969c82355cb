import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The engine's initdb dump made by `npm run build` (scripts/engine-dump.mjs) and shipped in dist/
// beside the program, so that no pipeline start runs initdb: before, the first start on a data dir
// did (3 s on an idle 2-core machine, 11 s on a loaded one) and every Kubernetes pod did, since
// a pod has no dump of its own to keep. Absent when running from src/ (the tests and benchmarks
// through tsx): then engineDump() names one under the OS's temp dir, which the first engine that
// finds none writes (an initdb per engine was seconds of CPU each: most of the engine tests' time).

/** dist/engine-initdb.tar, seen from dist/pglite/shipped-dump.js. */
const SHIPPED = fileURLToPath(new URL('../engine-initdb.tar', import.meta.url));

/** The shipped engine dump's path, or undefined when this build has none. */
export function shippedEngineDump(): string | undefined {
  return existsSync(SHIPPED) ? SHIPPED : undefined;
}

/** Where the build writes it (scripts/engine-dump.mjs). */
export const SHIPPED_ENGINE_DUMP = SHIPPED;

/** Where an engine started from src/ keeps its dump: written by the first, loaded by the others. */
const FROM_SOURCE = join(tmpdir(), 'svc-engine-initdb-from-source.tar');

/**
 * The dump an engine starts from when it is given none: the shipped one, else (running from src/)
 * one under the OS's temp dir. One that no longer loads (another PGlite) is written anew.
 */
export function engineDump(): string {
  return shippedEngineDump() ?? FROM_SOURCE;
}
