import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProgramInfo } from '../../src/model/program.js';
import { call, field, INFO_V1, type Json, pipelineProcesses, stop } from '../support/pipeline-process.js';
import { message } from '../support/svc-process.js';

// `svc pipeline` runs its native views on runtime_config.workers threads, bounded by its cores with
// one left to the main thread (src/pipeline/engine-threads.ts). This machine may have 2 cores, so
// `--cpu-cores 4` says it may use 4: the checkpoint's circuit pages then come in 3 shards. A resume
// on the machine's own cores (another number of threads) evaluates the views again, to the same rows.

const PROGRAM = `CREATE TABLE t (id INT PRIMARY KEY, name TEXT);
CREATE MATERIALIZED VIEW per_name AS SELECT name, count(*) AS n FROM t GROUP BY name;`;
/** INFO_V1's table t, with per_name as the output. */
const INFO: ProgramInfo = {
  ...INFO_V1,
  schema: {
    ...INFO_V1.schema,
    outputs: [
      {
        name: 'per_name',
        case_sensitive: false,
        materialized: true,
        fields: [field('name', 'VARCHAR'), field('n', 'BIGINT')],
      },
    ],
  },
};
const NAMES = 12;
const ROWS = 600;

const h = pipelineProcesses();

/** per_name's rows by ad-hoc query, name → n. */
async function perName(url: string): Promise<Record<string, number>> {
  const sql = encodeURIComponent('SELECT name, n FROM per_name');
  const response = await fetch(`${url}/query?format=json&sql=${sql}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`query: ${response.status} ${text}`);
  const rows = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { name: string; n: number });
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

const expected = Object.fromEntries(Array.from({ length: NAMES }, (_, k) => [`n${k}`, ROWS / NAMES]));

describe('svc pipeline: engine threads', () => {
  it(
    'workers 3 on 4 cores: three shards, checkpointed; resumed on other cores, the same rows',
    { timeout: 180_000 },
    async () => {
      const artifact = await h.writeArtifact(PROGRAM, INFO);
      const storage = join(h.dir, 'storage-threads');
      const config = (name: string) =>
        h.writeConfig(name, {
          binary_ref: artifact.path,
          program_info_ref: artifact.infoPath,
          storage_path: storage,
          runtime_config: { workers: 3 },
        });
      const first = await h.startPipeline(await config('threads'), 'running', ['--cpu-cores', '4']);
      const chose = await first.proc.waitForLine((l) => message(l).startsWith('native views run on'));
      expect(chose['fields']).toMatchObject({ threads: 3, workers: 3, cores: 4 });
      await first.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');

      const rows = Array.from({ length: ROWS }, (_, id) => ({ id, name: `n${id % NAMES}` }));
      const ingress = await fetch(`${first.url}/ingress/t?format=json&update_format=raw&array=true`, {
        method: 'POST',
        body: JSON.stringify(rows),
      });
      expect(ingress.status).toBe(200);
      await expect.poll(() => perName(first.url), { timeout: 30_000, interval: 100 }).toEqual(expected);

      const cp = await call(first.url, 'POST', '/checkpoint');
      expect(cp.status).toBe(200);
      const file = (await readdir(join(storage, 'checkpoints'))).find((f) => f.endsWith('.jsonl')) ?? '';
      const pages = (await readFile(join(storage, 'checkpoints', file), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Json)
        .filter((p) => p['section'] === 'circuit' && p['name'] === 'per_name');
      const circuits = pages.map((p) => p['circuit'] as { shard: number; shards: number });
      expect(new Set(circuits.map((c) => c.shards))).toEqual(new Set([3]));
      // 12 names hashed over 3 shards: more than one holds groups.
      expect(new Set(circuits.map((c) => c.shard)).size).toBeGreaterThan(1);
      expect(await stop(first.proc)).toBe(0);

      // The machine's cores this time, and workers 1: one thread, so the circuits are not taken back.
      const second = await h.startPipeline(await config('threads'), 'running', ['--cpu-cores', '1']);
      const again = await second.proc.waitForLine((l) => message(l).startsWith('native views run on'));
      expect(again['fields']).toMatchObject({ threads: 1, workers: 3, cores: 1 });
      const resumed = await second.proc.waitForLine((l) => message(l).startsWith('resumed from checkpoint'));
      expect(resumed['fields']).toMatchObject({ circuits: { resumed: false } });
      // Resumed is not yet Running: a query before then is answered 503 PipelineNotReady.
      await second.proc.waitForLine((l) => message(l) === 'pipeline initialization complete');
      expect(await perName(second.url)).toEqual(expected);
      expect(await stop(second.proc)).toBe(0);
    },
  );
});
