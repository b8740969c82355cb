import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackend } from '../support/api-harness.js';
import { message, startSvc } from '../support/svc-process.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SEED_TOP = new Set(['timestamp', 'level', 'target', 'fields', 'svc-service', 'pipeline-name', 'pipeline-id']);

async function ready(args: string[], env: Record<string, string> = {}) {
  const svc = startSvc(['manager', '--port', '0', ...args], env);
  const line = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'));
  const url = (line['fields'] as { url: string }).url;
  return { svc, url };
}

describe('svc manager (the real program)', () => {
  it('starts on embedded PGlite, logs seed JSON lines, keeps data across a clean SIGTERM restart', async () => {
    const dataDir = tempDir();
    const first = await ready(['--data-dir', dataDir]);
    const created = await fetch(`${first.url}/v0/pipelines`, {
      method: 'POST',
      body: JSON.stringify({ name: 'cli-p', program_code: 'CREATE TABLE t (x INT);' }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    // The compiler runs inside the manager: the program compiles to Success.
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${first.url}/v0/pipelines/cli-p`)).json()) as { program_status: string })
            .program_status,
        {
          timeout: 60_000,
          interval: 200,
        },
      )
      .toBe('Success');
    const compiled = (await (await fetch(`${first.url}/v0/pipelines/cli-p`)).json()) as {
      program_info: { schema: { inputs: { name: string }[] } };
    };
    expect(compiled.program_info.schema.inputs.map((r) => r.name)).toEqual(['t']);
    const createdLine = await first.svc.waitForLine((l) => message(l) === 'pipeline created');
    expect(createdLine).toMatchObject({
      'svc-service': 'manager',
      'pipeline-name': 'cli-p',
      'pipeline-id': id,
      level: 'INFO',
    });
    first.svc.child.kill('SIGTERM');
    expect(await first.svc.exited).toBe(0);
    expect(first.svc.lines.some((l) => message(l) === 'svc manager stopped')).toBe(true);
    for (const line of first.svc.lines) {
      for (const k of Object.keys(line)) expect(SEED_TOP.has(k), `top-level member ${k}`).toBe(true);
      // The manager runs every component; each line names the component that wrote it.
      expect(['manager', 'compiler-server', 'runner']).toContain(line['svc-service']);
      expect(line['timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
    // The new data dir came from the initdb dump the build ships, not an initdb in the manager's
    // process (whose RSS stayed): the slim cluster, without template databases. The compiler's
    // scratch database came from it too, and wrote no dump of its own.
    const store = await PGlite.create(join(dataDir, 'pgdata'));
    try {
      expect((await store.query('SELECT datname FROM pg_database ORDER BY 1')).rows).toEqual([{ datname: 'postgres' }]);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, 'cache'))).toBe(false);

    const second = await ready(['--data-dir', dataDir]);
    const again = await fetch(`${second.url}/v0/pipelines/cli-p`);
    expect(((await again.json()) as { id: string }).id).toBe(id);
    second.svc.child.kill('SIGINT');
    expect(await second.svc.exited).toBe(0);
  });

  it('runs against PostgreSQL; two managers starting at once on one database both come up', async () => {
    const { url: dbUrl, drop, db } = await openBackend('postgres');
    await db.close();
    try {
      const [a, b] = await Promise.all([
        ready([], { SVC_DATABASE_URL: dbUrl as string }),
        ready(['--database-url', dbUrl as string]),
      ]);
      const created = await fetch(`${a.url}/v0/pipelines`, {
        method: 'POST',
        body: JSON.stringify({ name: 'shared', program_code: '' }),
      });
      expect(created.status).toBe(201);
      expect((await fetch(`${b.url}/v0/pipelines/shared`)).status).toBe(200);
      a.svc.child.kill('SIGTERM');
      b.svc.child.kill('SIGTERM');
      expect([await a.svc.exited, await b.svc.exited]).toEqual([0, 0]);
    } finally {
      await drop();
    }
  });

  it('writes readable text without SVC_LOG_JSON', async () => {
    const svc = startSvc(['manager', '--port', '0', '--data-dir', tempDir()], { SVC_LOG_JSON: '' });
    const ready = await svc.waitForLine((l) => String(l['text'] ?? '').includes('svc manager ready at'));
    expect(ready['text']).toMatch(/INFO.*svc manager ready at http:\/\/127\.0\.0\.1:\d+/);
    expect(svc.lines.every((l) => 'text' in l)).toBe(true);
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
  });

  it('refuses bad configuration with a message naming the flag and its variable', async () => {
    const svc = startSvc(['manager', '--port', 'eighty']);
    expect(await svc.exited).toBe(2);
    expect(svc.stderr.join('')).toContain('--port (or SVC_PORT)');
    const url = startSvc(['manager'], { SVC_DATABASE_URL: 'mysql://x' });
    expect(await url.exited).toBe(2);
    expect(url.stderr.join('')).toContain('--database-url (or SVC_DATABASE_URL)');
  });

  it('lists its subcommands and flags in --help', async () => {
    const svc = startSvc(['manager', '--help']);
    expect(await svc.exited).toBe(0);
    for (const flag of ['--port', '--bind-address', '--data-dir', '--database-url', '--api-key']) {
      expect(svc.stdout()).toContain(flag);
    }
  });
});
