import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildArtifact } from '../../src/compiler/build/artifact.js';
import type { DeploymentConfig } from '../../src/model/deployment.js';
import type { ProgramInfo } from '../../src/model/program.js';
import { message, startSvc, type SvcProcess } from './svc-process.js';

// `svc pipeline` as the runner starts it (test/cli/pipeline.test.ts): the built program as a
// child process, an artifact on disk, a deployment config file, its storage directory.

export type Json = Record<string, unknown>;

/** A column of a ProgramInfo schema (nullable unless it is `id`). */
export const field = (name: string, type: string) => ({
  name,
  case_sensitive: false,
  columntype: { type, nullable: name !== 'id' },
  unused: false,
});

export const PROGRAM_V1 = `CREATE TABLE t (id INT PRIMARY KEY, name TEXT) WITH ('connectors' = '[]');
CREATE VIEW v AS SELECT id, name, NOW() AS seen FROM t;`;
export const INFO_V1: ProgramInfo = {
  input_connectors: { t: [] },
  output_connectors: {},
  schema: {
    inputs: [
      {
        name: 't',
        case_sensitive: false,
        materialized: false,
        fields: [field('id', 'INTEGER'), field('name', 'VARCHAR')],
        primary_key: ['id'],
        properties: { connectors: '[]' },
      },
    ],
    outputs: [
      {
        name: 'v',
        case_sensitive: false,
        materialized: false,
        fields: [field('id', 'INTEGER'), field('name', 'VARCHAR'), field('seen', 'TIMESTAMP')],
      },
    ],
  },
  udf_stubs: '',
};
// The changed program: a new column in t (its rows still fit), a new view.
export const PROGRAM_V2 = `CREATE TABLE t (id INT PRIMARY KEY, name TEXT, score INT);
CREATE VIEW w AS SELECT count(*) AS n FROM t;`;
export const INFO_V2: ProgramInfo = {
  input_connectors: {},
  output_connectors: {},
  schema: {
    inputs: [
      {
        name: 't',
        case_sensitive: false,
        materialized: false,
        fields: [field('id', 'INTEGER'), field('name', 'VARCHAR'), field('score', 'INTEGER')],
        primary_key: ['id'],
      },
    ],
    outputs: [{ name: 'w', case_sensitive: false, materialized: false, fields: [field('n', 'BIGINT')] }],
  },
  udf_stubs: '',
};

export interface Started {
  proc: SvcProcess;
  url: string;
  startupMs: number;
}

/**
 * A directory for artifacts, configs and storage, and the processes started in it, for one test
 * file: made before its tests, and the processes killed and the directory removed after them.
 */
export function pipelineProcesses() {
  const running: SvcProcess[] = [];
  const h = {
    dir: '',

    async writeArtifact(program_code: string, program_info: ProgramInfo) {
      const artifact = await buildArtifact(h.dir, {
        program_code,
        udf_toml: '',
        program_info,
        program_config: { cache: false, use_platform_compiler: false },
      });
      const infoPath = join(h.dir, `${artifact.source_checksum}.program_info.json`);
      await writeFile(infoPath, JSON.stringify(program_info));
      return { ...artifact, infoPath };
    },

    async writeConfig(name: string, overrides: Partial<DeploymentConfig>): Promise<string> {
      const path = join(h.dir, `${name}-${randomUUID()}.json`);
      const config: Partial<DeploymentConfig> = {
        pipeline_id: randomUUID(),
        pipeline_name: name,
        deployment_id: randomUUID(),
        platform_version: '0.1.0',
        runtime_config: {},
        bootstrap_policy: 'allow',
        ...overrides,
      };
      await writeFile(path, JSON.stringify(config));
      return path;
    },

    async startPipeline(configFile: string, initial: string, extra: string[] = []): Promise<Started> {
      const t0 = Date.now();
      const proc = startSvc([
        'pipeline',
        '--config-file',
        configFile,
        '--port',
        '0',
        '--bind-address',
        '127.0.0.1',
        '--initial',
        initial,
        ...extra,
      ]);
      running.push(proc);
      const listening = await proc.waitForLine((l) => message(l) === 'pipeline HTTP server listening');
      const url = String((listening['fields'] as Json)['url']);
      expect(url).toBe(`http://127.0.0.1:${String((listening['fields'] as Json)['port'])}`);
      return { proc, url, startupMs: Date.now() - t0 };
    },
  };
  beforeAll(async () => {
    h.dir = await mkdtemp(join(tmpdir(), 'svc-pipeline-'));
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await rm(h.dir, { recursive: true, force: true });
  });
  return h;
}

export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text } };
}

export const statusOf = async (url: string) => (await call(url, 'GET', '/status')).body['runtime_status'];

/** The sequence of runtime statuses the process logged. */
export const transitions = (proc: SvcProcess): string[] =>
  proc.lines
    .filter((l) => message(l).startsWith('runtime status changed'))
    .map((l) => String((l['fields'] as Json)['to']));

export async function stop(proc: SvcProcess): Promise<number | null> {
  proc.child.kill('SIGTERM');
  return proc.exited;
}
