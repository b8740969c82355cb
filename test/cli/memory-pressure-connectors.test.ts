import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// Input connectors under memory pressure (issue 28, item 5), through the real `svc manager` and a
// real `svc pipeline` process: its max_rss_mb is below the RSS it needs to run at all, so input is
// held from the first sample on and never released. Its datagen connector stops pulling (paused in
// /stats), what it took before is all in the table once, and the process keeps running.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const LIMIT = 1_000_000;
const CONNECTORS = JSON.stringify([
  { name: 'gen', transport: { name: 'datagen', config: { plan: [{ limit: LIMIT, rate: 2000 }] } } },
]);
const PROGRAM = `CREATE TABLE g (k INT) WITH ('materialized' = 'true', 'connectors' = '${CONNECTORS}');`;
const BUDGET_MB = 40;

type Endpoint = { endpoint_name: string; paused: boolean; metrics: { total_records: number } };

describe('max_rss_mb: input connectors hold under memory pressure', { timeout: 240_000 }, () => {
  it('a datagen connector stops pulling, keeps what it took once each, the pipeline runs on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-pressure-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    const url = (path: string) => `${m.url}/v0/pipelines/p${path}`;
    await m.call('POST', '/v0/pipelines', {
      name: 'p',
      program_code: PROGRAM,
      // The query pool is set apart: 5 % of this budget would be too small for the test's query.
      runtime_config: { max_rss_mb: BUDGET_MB, datafusion_memory_mb: 64 },
    });
    await m.until('p', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/p/start')).status).toBe(202);
    await m.until('p', (r) => r['deployment_status'] === 'Running');

    const gen = async () => {
      const stats = (await (await fetch(url('/stats'))).json()) as { inputs: Endpoint[] };
      return stats.inputs.find((e) => e.endpoint_name === 'g.gen');
    };
    await expect.poll(async () => (await gen())?.paused, { timeout: 30_000 }).toBe(true);
    const taken = (await gen())?.metrics.total_records ?? -1;
    expect(taken).toBeLessThan(LIMIT);

    // HTTP ingress is held too, and says why.
    const r = await fetch(url('/ingress/g?format=json&update_format=raw'), { method: 'POST', body: '{"k":-1}' });
    expect(r.status).toBe(503);
    const body = (await r.json()) as { error_code: string; details: Record<string, unknown> };
    expect(body.error_code).toBe('MemoryPressure');
    expect(body.details).toMatchObject({ memory_pressure: 'critical', budget_mb: BUDGET_MB });

    // While held (the ingress above waited 20 s of it), the connector took nothing more.
    expect((await gen())?.metrics.total_records).toBe(taken);
    expect((await gen())?.paused).toBe(true);
    const query = async (sql: string) => (await fetch(url(`/query?format=json&sql=${encodeURIComponent(sql)}`))).text();
    await expect
      .poll(() => query('SELECT count(*) AS n, count(DISTINCT k) AS d FROM g'), { timeout: 30_000 })
      .toBe(`{"n":${taken},"d":${taken}}\n`);
    expect((await m.get('p'))['deployment_status']).toBe('Running');
    m.svc.child.kill('SIGTERM');
    expect(await m.svc.exited).toBe(0);
  });
});
