import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// Wire compatibility, second round (issue 30): the manager's platform calls the ecosystem's clients
// reach for, against a real `svc manager` (compiler in process): validate_program, the support
// bundle with its secrets masked, GET /v0/metrics, and 501 (never a bare 404) for the event
// histories svc does not keep. test/cli/python-sdk.test.ts drives the same through the pinned SDK.

const procs: SvcProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'svc-wire-'));
let m: Awaited<ReturnType<typeof startManagerClient>>;
beforeAll(async () => {
  m = await startManagerClient(dataDir, procs);
}, 120_000);
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const SECRET = 'hunter2-very-secret';

describe('wire compatibility: the manager', { timeout: 120_000 }, () => {
  it('POST /v0/validate_program compiles without a pipeline: Success or SqlError naming the construct', async () => {
    const ok = await m.call('POST', '/v0/validate_program', { program_code: 'CREATE TABLE t (v VARIANT, d DOUBLE);' });
    expect(ok.status).toBe(200);
    const fields = (ok.body['Success'] as { program_info: { schema: { inputs: { fields: unknown[] }[] } } })
      .program_info.schema.inputs[0]?.fields;
    expect(fields).toMatchObject([{ columntype: { type: 'VARIANT' } }, { columntype: { type: 'DOUBLE' } }]);
    const bad = await m.call('POST', '/v0/validate_program', {
      program_code: "CREATE VIEW w AS SELECT * FROM TUMBLE(t, DESCRIPTOR(ts), INTERVAL '1' HOUR);",
    });
    expect(bad.body['SqlError']).toMatchObject({
      messages: [
        { start_line_number: 1, start_column: 32, message: expect.stringContaining('TUMBLE is not supported') },
      ],
    });
    expect((await m.call('POST', '/v0/validate_program', { nope: 1 })).status).toBe(400);
  });

  it('the support bundle is a ZIP of the record and the log, with every secret masked', async () => {
    const connectors = JSON.stringify([
      {
        transport: {
          name: 'postgres_input',
          config: { uri: `postgres://u:${SECRET}@db:5432/x`, query: 'SELECT 1 AS k' },
        },
      },
    ]);
    const created = await m.call('PUT', '/v0/pipelines/bundled', {
      name: 'bundled',
      program_code: `CREATE TABLE k (k INT) WITH ('connectors' = '${connectors}');`,
      runtime_config: { env: { DB_PASSWORD: SECRET } },
    });
    expect(created.status).toBe(201);
    await m.until('bundled', (r) => r['program_status'] === 'Success');
    const res = await fetch(`${m.url}/v0/pipelines/bundled/support_bundle`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const file = join(dataDir, 'bundle.zip');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    // Python's zipfile reads it as any ZIP tool would (and checks every entry's CRC).
    const listing = JSON.parse(
      execFileSync('python3', [
        '-c',
        'import json,sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(json.dumps({n: z.read(n).decode() for n in z.namelist()}))',
        file,
      ]).toString(),
    ) as Record<string, string>;
    expect(Object.keys(listing).sort()).toEqual(['logs.txt', 'not-deployed.txt', 'pipeline.json', 'platform.json']);
    const record = listing['pipeline.json'] ?? '';
    expect(JSON.parse(record)).toMatchObject({
      name: 'bundled',
      runtime_config: { env: { DB_PASSWORD: '<redacted>' } },
    });
    expect(record).toContain('<redacted>');
    for (const text of Object.values(listing)) expect(text).not.toContain(SECRET);
    expect((await m.call('GET', '/v0/pipelines/nope/support_bundle')).body['error_code']).toBe('UnknownPipelineName');
  });

  it('GET /v0/metrics answers text/plain (no pipeline deployed: empty)', async () => {
    const res = await fetch(`${m.url}/v0/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
  });

  it('event histories: 501 with a message saying what to use, never a bare 404', async () => {
    for (const path of ['/v0/cluster/events', '/v0/cluster/events/latest', '/v0/pipelines/bundled/events']) {
      const r = await m.call('GET', path);
      expect(r.status, path).toBe(501);
      expect(r.body).toMatchObject({
        error_code: 'NotImplemented',
        message: expect.stringContaining('no event history'),
      });
    }
  });
});
