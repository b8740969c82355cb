import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logging/logger.js';
import type { DeploymentConfig } from '../model/deployment.js';
import { startThreadEngine, type ThreadEngine } from '../engine/host/thread-engine.js';
import { ENGINE_CODEC_URL } from '../formats/engine-codec.js';
import type { Spill } from '../engine/traces/page-file.js';
import { engineThreads } from './engine-threads.js';
import { loadArtifact, type PipelineArtifact } from './artifact.js';
import type { ProcessSettings } from './settings.js';

// The first phase of a pipeline's start-up: the engine's thread boots while the artifact downloads
// (they used to run one after the other), then the program is loaded into it. The phases' times go to
// the log line "program loaded", so a slow start says where its time went (issue 26).

export interface Booted {
  artifact: PipelineArtifact;
  engine: ThreadEngine;
  /** Milliseconds from the start of boot until each phase ended: `engine_ms`, `artifact_ms`. */
  phases: Record<string, number>;
}

export interface BootOptions {
  config: DeploymentConfig;
  settings: ProcessSettings;
  log: Logger;
  /** An initdb dump to start the engine from (`--initdb-dump`): much faster than initdb. */
  initdbDump: string | undefined;
  /** The cores this process may use (`--cpu-cores`); the machine's when undefined (engine-threads.ts). */
  cores: number | undefined;
  /** The engine's thread ended on its own (it crashed): the pipeline holds a fatal error from then. */
  onEngineExit: (error: Error) => void;
}

/**
 * `<storage>/spill`, emptied, for the engine's scratch files (a native table's pages of rows,
 * engine/traces/page-file.ts), when the pipeline has storage. They are its process's own, and a
 * process killed leaves its files behind: emptied whether or not storage is on now.
 */
function spill(storagePath: string, minBytes: number | undefined): Spill | undefined {
  const dir = join(storagePath, 'spill');
  rmSync(dir, { recursive: true, force: true });
  return minBytes === undefined ? undefined : { dir, minBytes };
}

export async function bootEngine(options: BootOptions, t0: number): Promise<Booted> {
  const phases: Record<string, number> = {};
  const timed = <T>(phase: string, work: Promise<T>): Promise<T> =>
    work.then((value) => {
      phases[`${phase}_ms`] = Date.now() - t0;
      return value;
    });
  const { log, settings } = options;
  const { threads, cores } = engineThreads(settings.workers, settings.cpuCoresMax, options.cores);
  if (settings.nativeEngine)
    log.info(
      { threads, workers: settings.workers, cores },
      'native views run on %d thread(s): workers %d, %d core(s), one of them left to the main thread',
      threads,
      settings.workers,
      cores,
    );
  // No native views then, and so no shard threads: say that rather than a thread count.
  else
    log.info(
      { native_engine: false },
      'native engine switched off (dev_tweaks.native_engine): PGlite keeps every view',
    );
  const booting = timed(
    'engine',
    // The engine runs on a thread of its own (src/engine/host): this one keeps answering HTTP.
    Promise.resolve(
      startThreadEngine({
        initdbDump: options.initdbDump,
        native: settings.nativeEngine,
        workers: threads,
        timed: settings.cpuProfiler,
        // Ingress bodies are decoded on the engine's thread (data/ingress.ts).
        codec: ENGINE_CODEC_URL,
        spill: spill(options.config.storage_path, settings.spillMinBytes),
        onMaintenance: (view, maintenance, reason) =>
          log.info({ view, maintenance, reason }, 'view %s is maintained by %s', view, maintenance),
        onExit: options.onEngineExit,
      }),
    ),
  );
  booting.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  let artifact: PipelineArtifact;
  try {
    artifact = await timed('artifact', loadArtifact(options.config.binary_ref, options.config.program_info_ref));
  } catch (error) {
    void booting.then((blank) => blank.close()).catch(() => undefined);
    throw error;
  }
  const engine = await (await booting).load(artifact.program_code);
  // Tables: held by the native path or by PGlite, and why not native (docs/engine.md, "Native tables").
  for (const t of engine.relations().filter((r) => r.kind === 'table'))
    log.info(
      { table: t.name, maintenance: t.maintenance, reason: t.maintenanceReason },
      'table %s is held by %s',
      t.name,
      t.maintenance,
    );
  if (!engine.pglite.awake)
    log.info(
      'the engine parked its PGlite: every table and view is native (docs/engine.md, "An all-native program parks PGlite")',
    );
  return { artifact, engine, phases };
}
