import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentConfig } from '../../src/model/deployment.js';
import { writeProgramArtifact } from '../support/engine-artifact.js';

// The engine's state across a crash: a process ingests, steps, checkpoints (with input still
// buffered), ingests more, and is killed with SIGKILL; a new process on the same storage resumes
// from the checkpoint: the tables, the views' state and the buffered input are back, nothing of
// what came after the checkpoint is.

const CHILD = fileURLToPath(new URL('../support/engine-crash-child.ts', import.meta.url));
const PROGRAM = `CREATE TABLE t (id int PRIMARY KEY, v int);
CREATE MATERIALIZED VIEW s AS SELECT v % 2 AS parity, count(*) AS n, sum(v) AS total FROM t GROUP BY v % 2;
CREATE VIEW big AS SELECT id FROM t WHERE v > 10;
CREATE MATERIALIZED VIEW top2 AS SELECT id FROM t ORDER BY v DESC LIMIT 2;`;

type Event = Record<string, unknown> & { views?: { s: unknown[]; big: { id: number }[]; top2: { id: number }[] } };

function child(mode: string, configFile: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  let stderr = '';
  let rest = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) if (p.trim()) events.push(JSON.parse(p) as Event);
  });
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = async (key: string): Promise<Event> => {
    await expect.poll(() => events.some((e) => key in e) || proc.exitCode !== null, { timeout: 60_000 }).toBe(true);
    const found = events.find((e) => key in e);
    if (!found) throw new Error(`the child exited without ${key}: ${stderr}`);
    return found;
  };
  return { proc, waitFor, exited };
}

const sortedIds = (rows: { id: number }[] | undefined) => (rows ?? []).map((r) => r.id).sort((a, b) => a - b);

describe('engine checkpoints', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-engine-ckpt-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('resumes after kill -9 from the last checkpoint: tables, view state, buffered input', async () => {
    const artifact = await writeProgramArtifact(dir, PROGRAM);
    const storage = join(dir, 'storage');
    const config: DeploymentConfig = {
      pipeline_id: randomUUID(),
      pipeline_name: 'crash',
      deployment_id: randomUUID(),
      platform_version: '0.1.0',
      // Steps only when the test's child asks (the batch is never reached, the delay is an hour).
      runtime_config: {
        min_batch_size_records: 1_000_000,
        max_buffering_delay_usecs: 3_600_000_000,
        fault_tolerance: {},
      },
      bootstrap_policy: 'allow',
      ...artifact,
      storage_path: storage,
    };
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, JSON.stringify(config));

    const writer = child('write', configFile);
    const ready = await writer.waitFor('ready');
    expect(sortedIds(ready.views?.big)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(sortedIds(ready.views?.top2)).toEqual([7, 8]);
    writer.proc.kill('SIGKILL');
    await writer.exited;
    const files = (await readdir(join(storage, 'checkpoints'))).filter((f) => f.endsWith('.jsonl'));
    expect(files).toHaveLength(1);

    // What the killed process left in its spill directory is removed by the next one's start.
    const stale = join(storage, 'spill', 'killed-engine');
    await mkdir(stale, { recursive: true });
    await writeFile(join(stale, 'left-behind.pages'), 'x');
    const reader = child('read', configFile);
    const resumed = await reader.waitFor('resumed');
    expect(existsSync(stale)).toBe(false);
    expect(resumed['buffered']).toBe(2); // ids 4 and 5, accepted before the checkpoint
    // s and big are kept natively (their circuits rebuilt from the restored table), top2 by PGlite.
    expect(resumed['maintenance']).toEqual({ s: 'native', big: 'native', top2: 'recompute' });
    expect(sortedIds(resumed.views?.big)).toEqual([2, 3]);
    expect(sortedIds(resumed.views?.top2)).toEqual([2, 3]);
    expect(resumed.views?.s).toEqual(
      expect.arrayContaining([
        { parity: 1, n: 2, total: 28 },
        { parity: 0, n: 1, total: 14 },
      ]),
    );
    const stepped = await reader.waitFor('stepped');
    expect(sortedIds(stepped.views?.big)).toEqual([2, 3, 4, 5]);
    expect(sortedIds(stepped.views?.top2)).toEqual([4, 5]);
    expect(stepped.views?.s).toHaveLength(2);
    expect(stepped.views?.s).toEqual(
      expect.arrayContaining([
        { parity: 1, n: 3, total: 63 },
        { parity: 0, n: 2, total: 42 },
      ]),
    );
    expect(await reader.exited).toBe(0);
  });
});
