import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, INFO_V1, pipelineProcesses, PROGRAM_V1, stop } from '../support/pipeline-process.js';
import { message } from '../support/svc-process.js';

// Issue 29: SIGTERM (a drain, an eviction, a node upgrade) with --checkpoint-on-exit, which the
// pipeline template passes: a fault-tolerant pipeline writes what it acknowledged into a checkpoint
// before it exits, and the next process on that storage resumes from it.

const h = pipelineProcesses();

async function started(name: string, storage: string, extra: string[]) {
  const artifact = await h.writeArtifact(PROGRAM_V1, INFO_V1);
  const configFile = await h.writeConfig(name, {
    pipeline_id: randomUUID(),
    binary_ref: artifact.path,
    program_info_ref: artifact.infoPath,
    storage_path: storage,
    // An hour between automatic checkpoints: none is written during the test but the exit's.
    runtime_config: { fault_tolerance: { checkpoint_interval_secs: 3600 } },
  });
  const run = await h.startPipeline(configFile, 'running', extra);
  await run.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
  return { ...run, configFile };
}

const ingest = async (url: string, body: string) =>
  (await fetch(`${url}/ingress/t?format=json&update_format=raw`, { method: 'POST', body })).status;
const checkpointFiles = async (storage: string) =>
  (await readdir(join(storage, 'checkpoints')).catch(() => [])).filter((f) => f.endsWith('.jsonl'));

describe('svc pipeline --checkpoint-on-exit', () => {
  it(
    'SIGTERM writes a checkpoint of everything acknowledged, exits 0, and the next start resumes from it',
    {
      timeout: 120_000,
    },
    async () => {
      const storage = join(h.dir, 'storage-term');
      const first = await started('term', storage, ['--checkpoint-on-exit']);
      expect(await ingest(first.url, '{"id":1,"name":"a"}\n{"id":2,"name":"b"}')).toBe(200);
      expect(await checkpointFiles(storage)).toEqual([]);
      expect(await stop(first.proc)).toBe(0);
      expect(first.proc.lines.find((l) => message(l) === 'checkpoint written before exit')).toBeDefined();
      // Both acknowledged rows are in it.
      const written = first.proc.lines.find((l) => message(l) === 'checkpoint written');
      expect((written?.['fields'] as Record<string, unknown> | undefined)?.['rows']).toBe(2);
      expect(await checkpointFiles(storage)).toHaveLength(1);

      const second = await h.startPipeline(first.configFile, 'running');
      await second.proc.waitForLine((l) => message(l).startsWith('resumed from checkpoint'));
      await second.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      expect(await stop(second.proc)).toBe(0);
    },
  );

  it('without the flag (the local runner), SIGTERM writes nothing, as before', { timeout: 120_000 }, async () => {
    const storage = join(h.dir, 'storage-plain');
    const run = await started('plain', storage, []);
    expect(await ingest(run.url, '{"id":1,"name":"a"}')).toBe(200);
    expect(await stop(run.proc)).toBe(0);
    expect(await checkpointFiles(storage)).toEqual([]);
  });

  it('a pipeline that is not fault tolerant writes no checkpoint at SIGTERM', { timeout: 120_000 }, async () => {
    const artifact = await h.writeArtifact(PROGRAM_V1, INFO_V1);
    const storage = join(h.dir, 'storage-noft');
    const configFile = await h.writeConfig('noft', {
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: storage,
    });
    const run = await h.startPipeline(configFile, 'running', ['--checkpoint-on-exit']);
    await run.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
    expect(await ingest(run.url, '{"id":1,"name":"a"}')).toBe(200);
    expect((await call(run.url, 'GET', '/status')).body['runtime_status']).toBe('Running');
    expect(await stop(run.proc)).toBe(0);
    expect(await checkpointFiles(storage)).toEqual([]);
  });
});
