import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// The runner keeps each pipeline's row between looks (src/runner/slot.ts): its safety-net polls of a
// Running pipeline read nothing from the database while the row is unchanged, and an edit the runner
// gets no NOTIFY for is still seen at the next poll.

const dirs: string[] = [];
const procs: SvcProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function rowReads(url: string): Promise<{ memory: number; database: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (source: string) =>
    Number(new RegExp(`^svc_runner_row_reads_total\\{source="${source}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { memory: read('memory'), database: read('database') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the runner reuses rows between looks', { timeout: 120_000 }, () => {
  it('polls of a Running pipeline come from memory; an edit without NOTIFY is read at the next poll', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rows-'));
    dirs.push(dataDir);
    const m = await startManagerClient(dataDir, procs);
    expect(
      (await m.call('POST', '/v0/pipelines', { name: 'rows', program_code: 'CREATE TABLE t (x INT);' })).status,
    ).toBe(201);
    await m.until('rows', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/rows/start')).status).toBe(202);
    await m.until('rows', (r) => r['deployment_status'] === 'Running');
    await sleep(1_000);

    // Quiet: three safety-net polls (every 2.5 s) and no change to the row.
    const before = await rowReads(m.url);
    await sleep(7_600);
    const quiet = await rowReads(m.url);
    expect(quiet.memory - before.memory).toBeGreaterThanOrEqual(2);
    expect(quiet.database).toBe(before.database);

    // A description edit sends no NOTIFY: the poll sees the new row version and reads it.
    expect((await m.call('PATCH', '/v0/pipelines/rows', { description: 'edited while running' })).status).toBe(200);
    await expect
      .poll(async () => (await rowReads(m.url)).database, { timeout: 6_000, interval: 200 })
      .toBeGreaterThan(quiet.database);

    expect((await m.call('POST', '/v0/pipelines/rows/stop?force=true')).status).toBe(202);
    await m.until('rows', (r) => r['deployment_status'] === 'Stopped');
    m.svc.child.kill('SIGTERM');
    expect(await m.svc.exited).toBe(0);
  });
});
