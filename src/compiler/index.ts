import type { Database } from '../store/database.js';
import type { Logger } from '../logging/logger.js';
import { forTarget } from '../logging/logger.js';
import { readBuildInfo } from '../version.js';
import { startArtifactServer } from './artifact-server.js';
import { rebuildArtifact } from './build/rebuild.js';
import { selectArtifactRecord } from '../store/compiler/artifact-source.js';
import { databaseIo } from './io.js';
import { compileSql, type SqlResult } from './sql/compile.js';
import { createScratch } from './sql/scratch.js';
import { startWorker } from './worker.js';

export interface CompilerOptions {
  db: Database;
  log: Logger;
  /** Where build artifacts are stored (`<dataDir>/artifacts/<sha256>.json`). */
  dataDir: string;
  concurrency?: number;
  pollMs?: number;
  aliveWithinSecs?: number;
  unstableFeatures?: readonly string[];
  platformVersion?: string;
  /** Serve the artifacts over HTTP (`svc compiler-server --port`); port 0 picks a free one. */
  artifactServer?: { host: string; port: number; preferredPort?: number };
}

export interface Compiler {
  instance: string;
  /** The artifact server's base URL, when it was asked for. */
  artifactUrl: string | undefined;
  /** The SQL stage alone, on this compiler's scratch database: no pipeline, no artifact. */
  validate(programCode: string): Promise<SqlResult>;
  close(): Promise<void>;
}

/**
 * The compiler component: inside `svc manager` or alone as `svc compiler-server`. Its lines carry
 * `svc-service: compiler-server` whichever process runs it.
 */
export async function startCompiler(opts: CompilerOptions): Promise<Compiler> {
  const log = forTarget(opts.log.child({ 'svc-service': 'compiler-server' }), 'svc::compiler');
  const scratch = createScratch();
  // Opening PGlite costs seconds; pay it while nothing waits (a failure is retried on first use).
  scratch.warm().catch((error: unknown) => log.warn({ err: error }, 'could not open the scratch database yet'));
  const worker = await startWorker({
    io: databaseIo(opts.db),
    log,
    scratch,
    concurrency: opts.concurrency ?? 4,
    pollMs: opts.pollMs ?? 2_000,
    aliveWithinSecs: opts.aliveWithinSecs ?? 10,
    build: {
      dataDir: opts.dataDir,
      platformVersion: opts.platformVersion ?? readBuildInfo().version,
      unstableFeatures: opts.unstableFeatures ?? [],
    },
  });
  const server =
    opts.artifactServer &&
    (await startArtifactServer({
      ...opts.artifactServer,
      dataDir: opts.dataDir,
      log,
      rebuild: async (id, wanted) => rebuildArtifact(opts.dataDir, await selectArtifactRecord(opts.db, id), wanted),
    }));
  return {
    instance: worker.instance,
    artifactUrl: server?.url,
    validate: (programCode) => compileSql(scratch, programCode),
    async close() {
      await server?.close();
      await worker.close();
      await scratch.close();
    },
  };
}
