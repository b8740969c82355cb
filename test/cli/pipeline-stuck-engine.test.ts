import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProgramInfo } from '../../src/model/program.js';
import { call, pipelineProcesses, statusOf } from '../support/pipeline-process.js';
import { message } from '../support/svc-process.js';

// `svc pipeline` whose engine is stuck in a step of two minutes (a view that sleeps): the process's
// own thread keeps answering /status meanwhile, and once nobody asks (its runner is gone) it stops by
// itself, without waiting for the step. Before the engine had a thread of its own, /status went
// unanswered for the whole step and the orphan outlived it.

const h = pipelineProcesses();

const PROGRAM = `CREATE TABLE slow_in (id INT NOT NULL);
CREATE VIEW slow AS SELECT s.id FROM slow_in s, LATERAL (SELECT pg_sleep(s.id * 120)) z;`;
const column = { name: 'id', case_sensitive: false, columntype: { type: 'INTEGER', nullable: false }, unused: false };
const INFO: ProgramInfo = {
  input_connectors: { slow_in: [] },
  output_connectors: {},
  schema: {
    inputs: [{ name: 'slow_in', case_sensitive: false, materialized: false, fields: [column] }],
    outputs: [{ name: 'slow', case_sensitive: false, materialized: false, fields: [column] }],
  },
  udf_stubs: '',
};

describe('a stuck engine', () => {
  it('leaves /status answering during a 120 s step, and an orphan exits (0) without waiting for it', async () => {
    const artifact = await h.writeArtifact(PROGRAM, INFO);
    const config = await h.writeConfig('stuck', {
      binary_ref: artifact.path,
      program_info_ref: artifact.infoPath,
      storage_path: join(h.dir, 'stuck-storage'),
    });
    const p = await h.startPipeline(config, 'running', ['--orphan-timeout-secs', '3']);
    await expect.poll(() => statusOf(p.url), { timeout: 60_000 }).toBe('Running');
    const r = await fetch(`${p.url}/ingress/slow_in?format=json`, { method: 'POST', body: '{"insert":{"id":1}}' });
    expect(r.status).toBe(200);
    // The step is running (stats count it started); /status answers every 0.5 s meanwhile.
    for (let i = 0; i < 12; i++) {
      const status = await fetch(`${p.url}/status`, { signal: AbortSignal.timeout(10_000) });
      expect(status.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect((await call(p.url, 'GET', '/stats')).body['global_metrics']).toMatchObject({ total_completed_steps: 0 });
    expect(p.proc.child.exitCode).toBeNull();
    // Nobody asks any more: it stops by itself, long before the step would end.
    expect(await p.proc.exited).toBe(0);
    expect(p.proc.lines.some((l) => message(l).includes('the runner is gone'))).toBe(true);
  }, 100_000);
});
