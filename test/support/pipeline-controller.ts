import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '../../src/model/json.js';
import type { FastifyInstance } from 'fastify';
import { PipelineController } from '../../src/pipeline/controller.js';
import { buildPipelineApp } from '../../src/pipeline/http.js';
import { processSettings } from '../../src/pipeline/settings.js';
import { deploymentOf, writeProgramArtifact } from './engine-artifact.js';
import { silentLogger } from './silent-logger.js';

/**
 * A pipeline controller in this process for `program_code`, as the runner would deploy it: the
 * artifact written under `dir`, storage in a fresh directory there. Not yet loaded.
 */
export async function programController(
  dir: string,
  program_code: string,
  runtime_config: Record<string, JsonValue> = {},
  /** As `svc pipeline --cpu-cores` would set it: the cores its worker threads are bounded by. */
  cores?: number,
): Promise<PipelineController> {
  const artifact = await writeProgramArtifact(dir, program_code);
  const config = deploymentOf(artifact, runtime_config, join(dir, randomUUID()));
  return new PipelineController(config, processSettings(runtime_config), 'Running', silentLogger(), { cores });
}

export interface PipelineApp {
  ctl: PipelineController;
  app: FastifyInstance;
  /** The listening app's URL. */
  base: string;
  close(): Promise<void>;
}

/**
 * A loaded pipeline controller for `program_code` behind its HTTP app, listening on a free loopback
 * port, in a fresh temporary directory that `close` removes.
 */
export async function startPipelineApp(
  program_code: string,
  runtime_config: Record<string, JsonValue> = {},
  cores?: number,
): Promise<PipelineApp> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pipeline-app-'));
  const ctl = await programController(dir, program_code, runtime_config, cores);
  await ctl.load();
  const app = buildPipelineApp(ctl, silentLogger());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ctl,
    app,
    base,
    async close() {
      await app.close();
      await ctl.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
