// The build's last step: the engine's initdb dump, shipped in dist/ (src/pglite/shipped-dump.ts),
// made by the engine's own start-up code so that it is exactly what a pipeline would have written.
import { rmSync } from 'node:fs';
import { startEngine } from '../dist/engine/open.js';
import { SHIPPED_ENGINE_DUMP } from '../dist/pglite/shipped-dump.js';

// Made anew by every build: a dump of another PGlite version would be refused and rebuilt at start.
rmSync(SHIPPED_ENGINE_DUMP, { force: true });
const engine = await startEngine({ initdbDump: SHIPPED_ENGINE_DUMP });
await engine.close();
