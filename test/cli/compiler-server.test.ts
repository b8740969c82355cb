import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, openBackend, pipelineBody, startHarnessOn } from '../support/api-harness.js';
import { message, type SvcProcess, startSvc } from '../support/svc-process.js';

// `svc compiler-server` as its own process (the built dist/cli.js) against a real PostgreSQL, with
// the API in this process on the same database: a pipeline created through the API is compiled by
// the other process, whose artifact server then serves what it built.

const PROGRAM =
  'CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT);\nCREATE VIEW big AS SELECT id FROM orders WHERE amount > 10;';

interface Checksums {
  id: string;
  program_version: number;
  program_binary_source_checksum: string | null;
  program_binary_integrity_checksum: string | null;
}

describe('svc compiler-server (the real program) on PostgreSQL', () => {
  let drop: () => Promise<void> = async () => undefined;
  let h: Harness | undefined;
  let svc: SvcProcess | undefined;
  let serverUrl = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-compiler-server-'));

  beforeAll(async () => {
    const backend = await openBackend('postgres');
    drop = backend.drop;
    await backend.db.close();
    const databaseUrl = backend.url ?? '';
    h = await startHarnessOn(databaseUrl);
    svc = startSvc([
      'compiler-server',
      '--port',
      '0',
      '--bind-address',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--database-url',
      databaseUrl,
    ]);
    const ready = await svc.waitForLine((l) => message(l).startsWith('svc compiler-server ready at'));
    serverUrl = (ready['fields'] as { url: string }).url;
  });

  afterAll(async () => {
    if (svc && svc.child.exitCode === null) {
      svc.child.kill('SIGKILL');
      await svc.exited;
    }
    await h?.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('compiles a pipeline created through the API and serves its artifact; SIGTERM exits 0', async () => {
    if (!h || !svc) throw new Error('not started');
    const api = h;
    const server = svc;
    expect(serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const created = await api.request('POST', '/v0/pipelines', pipelineBody('remote', { program_code: PROGRAM }));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await expect
      .poll(async () => (await api.request('GET', '/v0/pipelines/remote?selector=status')).body.program_status, {
        timeout: 60_000,
        interval: 50,
      })
      .toBe('Success');
    const record = (await api.request('GET', '/v0/pipelines/remote')).body;
    expect(record.program_info.schema.inputs.map((r: { name: string }) => r.name)).toEqual(['orders']);

    const [row] = await api.db.query<Checksums>(
      'SELECT id, program_version, program_binary_source_checksum, program_binary_integrity_checksum FROM pipeline WHERE name = $1',
      ['remote'],
    );
    expect(row).toBeDefined();
    if (!row) return;
    expect(row.id).toBe(id);
    expect(Number(row.program_version)).toBe(record.program_version);
    expect(row.program_binary_source_checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(row.program_binary_integrity_checksum).toMatch(/^[0-9a-f]{64}$/);
    const path = `${id}/${row.program_version}/${row.program_binary_source_checksum}/${row.program_binary_integrity_checksum}`;

    // The probes the Helm chart points at this port.
    for (const probe of ['healthz', 'readyz']) expect((await fetch(`${serverUrl}/${probe}`)).status).toBe(200);
    const binary = await fetch(`${serverUrl}/binary/${path}`);
    expect(binary.status).toBe(200);
    const artifact = (await binary.json()) as {
      source_checksum: string;
      program_code: string;
      program_info: unknown;
    };
    expect(artifact.source_checksum).toBe(row.program_binary_source_checksum);
    expect(artifact.program_code).toBe(PROGRAM);
    expect(artifact.program_info).toEqual(record.program_info);

    const info = await fetch(`${serverUrl}/program_info/${path}`);
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual(record.program_info);

    const wrong = (row.program_binary_integrity_checksum ?? '').replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const badPath = `${id}/${row.program_version}/${row.program_binary_source_checksum}/${wrong}`;
    for (const kind of ['binary', 'program_info']) {
      const refused = await fetch(`${serverUrl}/${kind}/${badPath}`);
      expect(refused.status, kind).toBe(404);
      expect(((await refused.json()) as { error_code: string }).error_code).toBe('ArtifactNotFound');
    }

    // The compiling was done by the other process, and it logged it as the compiler-server.
    const started = await server.waitForLine(
      (l) => message(l) === 'SQL compilation started' && l['pipeline-id'] === id,
    );
    expect(started).toMatchObject({ 'svc-service': 'compiler-server', 'pipeline-name': 'remote' });
    await server.waitForLine((l) => message(l).startsWith('Build finished: Success') && l['pipeline-id'] === id);
    expect(server.lines.length).toBeGreaterThan(0);
    for (const line of server.lines) expect(line['svc-service']).toBe('compiler-server');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.lines.some((l) => message(l) === 'svc compiler-server stopped')).toBe(true);
  });
});
