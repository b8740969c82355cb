import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { compileSql } from '../../src/compiler/sql/compile.js';
import { createScratch } from '../../src/compiler/sql/scratch.js';
import { createLogger } from '../../src/logging/logger.js';
import type { JsonValue } from '../../src/model/json.js';
import { PipelineController } from '../../src/pipeline/controller.js';
import { buildPipelineApp } from '../../src/pipeline/http.js';
import { processSettings } from '../../src/pipeline/settings.js';
import { createDatabase } from './api-harness.js';
import { deploymentOf, writeProgramArtifact } from './engine-artifact.js';

// A pipeline (controller + its HTTP app, in process) of a program compiled by the real compiler, so
// its connectors are in program_info as a deployed pipeline's are. Logs are kept for assertions
// (secrets must never appear in them).

export interface ConnectorPipeline {
  ctl: PipelineController;
  app: FastifyInstance;
  logs: string[];
  stats(): Promise<PipelineStats>;
  query(sql: string): Promise<Record<string, JsonValue>[]>;
  close(): Promise<void>;
}

export interface EndpointStatsBody {
  endpoint_name: string;
  metrics: Record<string, number | boolean>;
  fatal_error: string | null;
  paused: boolean;
  config: unknown;
}
export interface PipelineStats {
  global_metrics: { pipeline_complete: boolean; total_processed_records: number };
  connector_stats: { num_errors: number };
  inputs: EndpointStatsBody[];
  outputs: EndpointStatsBody[];
}

export async function compileProgram(program: string) {
  const scratch = createScratch();
  try {
    const result = await compileSql(scratch, program);
    if (!result.ok) throw new Error(`program does not compile: ${JSON.stringify(result.messages)}`);
    return result.info;
  } finally {
    await scratch.close();
  }
}

export async function startConnectorPipeline(
  dir: string,
  program_code: string,
  runtime_config: Record<string, JsonValue> = {},
  storage_path = join(dir, randomUUID()),
): Promise<ConnectorPipeline> {
  const program_info = await compileProgram(program_code);
  const artifact = await writeProgramArtifact(dir, program_code, program_info);
  const config = deploymentOf(artifact, runtime_config, storage_path);
  const logs: string[] = [];
  const log = createLogger({
    service: 'pipeline',
    json: true,
    level: 'info',
    destination: new Writable({
      write: (chunk: Buffer, _e, done) => {
        logs.push(chunk.toString());
        done();
      },
    }),
  });
  const ctl = new PipelineController(config, processSettings(runtime_config), 'Running', log);
  const app = buildPipelineApp(ctl, log);
  await ctl.load();
  return {
    ctl,
    app,
    logs,
    async stats() {
      return (await app.inject({ method: 'GET', url: '/stats' })).json<PipelineStats>();
    },
    async query(sql) {
      const res = await app.inject({ method: 'GET', url: `/query?format=json&sql=${encodeURIComponent(sql)}` });
      return res.body
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, JsonValue>);
    },
    async close() {
      await app.close();
      await ctl.close();
    },
  };
}

/** A database of its own in the suite's PostgreSQL, with a client connected to it. */
export async function connectedDatabase(): Promise<{ url: string; client: pg.Client; drop: () => Promise<void> }> {
  const db = await createDatabase();
  const client = new pg.Client(db.url);
  await client.connect();
  return {
    url: db.url,
    client,
    drop: async () => {
      await client.end();
      await db.drop();
    },
  };
}
