import { join } from 'node:path';
import type { CommonConfig, CompilerServerConfig } from '../config.js';
import { startCompiler } from '../compiler/index.js';
import { forTarget, type Logger } from '../logging/logger.js';
import { openDatabase } from '../store/open.js';
import { type RunningComponent, startComponent } from './component.js';

/** Where the compiler keeps its work, under the data dir (the same for `svc manager`). */
export const compilerDir = (config: CommonConfig): string => join(config.dataDir, 'compiler');

/** `svc compiler-server`: the compiler and its artifact server (on --port) alone. */
export async function startCompilerServer(config: CompilerServerConfig, rootLog: Logger): Promise<RunningComponent> {
  const log = forTarget(rootLog, 'svc::compiler-server');
  return startComponent('compiler-server', log, async (onClose) => {
    const { db, where } = await openDatabase(config.databaseUrl, config.dataDir, log);
    onClose(() => db.close());
    const compiler = await startCompiler({
      db,
      log: rootLog,
      dataDir: compilerDir(config),
      unstableFeatures: config.unstableFeatures,
      artifactServer: { host: config.bindAddress, port: config.port },
    });
    onClose(() => compiler.close());
    const url = compiler.artifactUrl ?? '';
    log.info({ url, database: where }, 'svc compiler-server ready at %s', url);
    return url;
  });
}
