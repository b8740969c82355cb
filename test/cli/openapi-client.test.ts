import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// A client GENERATED from svc's own OpenAPI document drives the data path (issue 30): openapi-typescript
// (npm) turns GET /v0/openapi.json into types, openapi-fetch (npm) is the client they type, and a
// small driver (test/support/openapi-client-driver.ts.txt) written against those types is checked by
// tsc and then run against a real `svc manager` with a running pipeline: ingress with its query
// parameters, completion_status with the token, an ad-hoc query.

const ROOT = new URL('../../', import.meta.url).pathname;
const procs: SvcProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
// Under the repository's node_modules, so that the generated code resolves openapi-fetch.
const genDir = join(ROOT, 'node_modules', '.cache', `svc-openapi-client-${process.pid}`);
let m: Awaited<ReturnType<typeof startManagerClient>>;

beforeAll(async () => {
  m = await startManagerClient(dataDir, procs);
}, 120_000);
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(genDir, { recursive: true, force: true });
});

describe('a client generated from /v0/openapi.json', { timeout: 180_000 }, () => {
  it('types the data path and drives it', async () => {
    const created = await m.call('PUT', '/v0/pipelines/gen', {
      name: 'gen',
      program_code:
        "CREATE TABLE t (id INT NOT NULL, s VARCHAR) WITH ('materialized' = 'true');\nCREATE MATERIALIZED VIEW v AS SELECT id, s FROM t;",
    });
    expect(created.status).toBe(201);
    await m.until('gen', (r) => r['program_status'] === 'Success');
    expect((await m.call('POST', '/v0/pipelines/gen/start')).status).toBe(202);
    await m.until('gen', (r) => r['deployment_status'] === 'Running');
    const doc = (await m.call('GET', '/v0/openapi.json')).body;
    const types = astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
    // The parameters the document says, as the generator typed them.
    expect(types).toMatch(/update_format\?: "insert_delete" \| "raw" \| "weighted" \| "debezium"/);
    expect(types).toMatch(/json_flavor\?: "default" \| "pandas"/);
    expect(types).toMatch(/send_snapshot\?: "true" \| "false"/);
    expect(types).toMatch(/backpressure\?: "true" \| "false"/);
    mkdirSync(genDir, { recursive: true });
    writeFileSync(join(genDir, 'api.d.ts'), types);
    copyFileSync(join(ROOT, 'test/support/openapi-client-driver.ts.txt'), join(genDir, 'driver.ts'));
    // The driver type-checks against the generated types (a wrong parameter name or value would not).
    execFileSync(
      join(ROOT, 'node_modules/.bin/tsc'),
      [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        join(genDir, 'driver.ts'),
      ],
      { stdio: 'pipe' },
    );
    const { drive } = (await import(join(genDir, 'driver.ts'))) as {
      drive: (base: string, pipeline: string) => Promise<{ rows: string }>;
    };
    const { rows } = await drive(m.url, 'gen');
    expect(rows).toBe('{"id":1,"s":"a"}\n{"id":2,"s":"b"}\n');
  });
});
