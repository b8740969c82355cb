import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/store/pglite-database.js';
import { BACKENDS, pipelineBody, startHarness, startHarnessOn } from '../support/api-harness.js';
import { startPostgres, stopPostgres } from '../support/postgres.js';

describe.each(BACKENDS)('database notifications on %s', (backend) => {
  it('raises svc_runner on desired-status changes and svc_compiler on program changes', async () => {
    const h = await startHarness(backend);
    try {
      const runner: string[] = [];
      const compiler: string[] = [];
      const stopRunner = await h.db.listen('svc_runner', (p) => runner.push(p));
      const stopCompiler = await h.db.listen('svc_compiler', (p) => compiler.push(p));
      const id = (await h.request('POST', '/v0/pipelines', pipelineBody('notify'))).body.id as string;
      await h.request('POST', '/v0/pipelines/notify/start');
      await h.request('POST', '/v0/pipelines/notify/stop?force=true');
      await h.request('PATCH', '/v0/pipelines/notify', { program_code: 'CREATE TABLE z (a INT);' });
      await h.request('PATCH', '/v0/pipelines/notify', { description: 'no wake-up for this' });
      await expect.poll(() => runner.length).toBeGreaterThanOrEqual(3);
      await expect.poll(() => compiler.length).toBeGreaterThanOrEqual(2);
      // created, started, stopped: the runner; created, program changed: the compiler.
      expect(runner).toEqual([id, id, id]);
      expect(compiler).toEqual([id, id]);
      await stopRunner();
      await stopCompiler();
    } finally {
      await h.close();
    }
  });
});

describe('losing the database', () => {
  it('answers 503 DatabaseUnavailable (never 500) while PostgreSQL is down, and recovers', async () => {
    const pg = await startPostgres();
    const h = await startHarnessOn(pg.url);
    try {
      expect((await h.request('POST', '/v0/pipelines', pipelineBody('survivor'))).status).toBe(201);
      stopPostgres(pg);
      for (const [method, path] of [
        ['GET', '/v0/pipelines'],
        ['GET', '/v0/pipelines/survivor'],
        ['POST', '/v0/pipelines/survivor/start'],
        ['GET', '/readyz'],
      ] as const) {
        const r = await h.request(method, path);
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(503);
        expect(r.body.error_code).toBe('DatabaseUnavailable');
      }
      expect((await h.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await h.close().catch(() => undefined);
      stopPostgres(pg);
    }
  });
});

describe('embedded data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is held by one opener at a time, free after close, and a stale lock is taken over', async () => {
    const first = await openPglite(dir);
    await expect(openPglite(dir)).rejects.toThrow(/in use by another svc process \(pid \d+\)/);
    await first.close();
    const second = await openPglite(dir);
    await second.close();
    // A lock left by a process that no longer exists (kill -9) does not keep svc out.
    writeFileSync(join(dir, 'svc.lock'), '999999999\n');
    const third = await openPglite(dir);
    await third.close();
  });
});
