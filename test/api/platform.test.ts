import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beat } from '../../src/store/heartbeat.js';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe.each(BACKENDS)('platform endpoints and request handling on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h.close());

  it('GET /v0/config names the version and edition', async () => {
    const r = await h.request('GET', '/v0/config');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      version: '0.1.0',
      edition: 'Open source',
      revision: expect.any(String),
      changelog_url: '',
      telemetry: '',
      license_validity: null,
      update_info: null,
    });
  });

  it('/healthz and /readyz answer 200; /metrics is Prometheus text with request counts', async () => {
    const live = await h.request('GET', '/healthz');
    expect([live.status, live.body]).toEqual([200, { status: 'healthy' }]); // the established body
    expect((await h.request('GET', '/readyz')).status).toBe(200);
    const m = await h.request('GET', '/metrics');
    expect(m.status).toBe(200);
    expect(m.text).toContain('svc_http_requests_total{method="GET",route="/readyz",status="200"} 1');
    expect(m.text).toContain('svc_process_cpu_seconds_total');
  });

  it('/v0/cluster_healthz answers the established body: all_healthy, then api, compiler and runner', async () => {
    const r = await h.request('GET', '/v0/cluster_healthz');
    expect(r.status).toBe(503);
    const part = { checked_at: expect.stringMatching(RFC3339), unchanged_since: expect.stringMatching(RFC3339) };
    expect(r.body).toEqual({
      all_healthy: false,
      api: { healthy: true, message: expect.any(String), ...part },
      compiler: { healthy: false, message: expect.stringContaining('compiler'), ...part },
      runner: { healthy: false, message: expect.stringContaining('runner'), ...part },
    });
    // A runner that beat 5 minutes ago and again now has been healthy since now (a new run of beats);
    // the compiler's beats, 10 s apart, make one run from its first.
    await h.db.query(
      `INSERT INTO component_heartbeat (component, instance, last_seen, since) VALUES
         ('compiler', 'c1', clock_timestamp() - interval '10 s', clock_timestamp() - interval '40 s'),
         ('runner', 'r1', clock_timestamp() - interval '5 min', clock_timestamp() - interval '6 min')`,
    );
    await beat(h.db, 'compiler', 'c1');
    await beat(h.db, 'runner', 'r1');
    const ok = await h.request('GET', '/v0/cluster_healthz');
    expect(ok.status).toBe(200);
    expect(ok.body.all_healthy).toBe(true);
    const age = (t: string) => (Date.parse(ok.body.api.checked_at) - Date.parse(t)) / 1000;
    expect(age(ok.body.compiler.unchanged_since)).toBeGreaterThanOrEqual(40);
    expect(age(ok.body.runner.unchanged_since)).toBeLessThan(30);
  });

  it('/v0/openapi.json is an OpenAPI 3.1 document generated from the schemas', async () => {
    const r = await h.request('GET', '/v0/openapi.json');
    expect(r.body.openapi).toBe('3.1.0');
    const record = r.body.components.schemas.PipelineRecord;
    expect(record.required).toEqual(
      expect.arrayContaining(['id', 'name', 'deployment_status', 'program_status', 'storage_status']),
    );
    expect(record.properties.deployment_resources_status.enum).toEqual([
      'Stopped',
      'Provisioning',
      'Provisioned',
      'Stopping',
    ]);
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining(['/v0/pipelines', '/v0/pipelines/{pipeline_name}/start']),
    );
    // Every $ref resolves inside the document.
    const refs = JSON.stringify(r.body).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs)
      expect(r.body.components.schemas).toHaveProperty(ref.split('/').pop()?.replace('"', '') as string);
  });

  it("the SDK's calls svc does not serve answer 501 NotImplemented saying why, not 404 or 405", async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('not-served'));
    const calls: Array<[string, string, string]> = [
      ['POST', '/v0/pipelines/not-served/start_transaction', 'pipelines/{name}/start_transaction'],
      ['POST', '/v0/pipelines/not-served/commit_transaction', 'pipelines/{name}/commit_transaction'],
      ['POST', '/v0/pipelines/not-served/testing', 'pipelines/{name}/testing'],
      ['POST', '/v0/pipelines/not-served/update_runtime', 'pipelines/{name}/update_runtime'],
      ['POST', '/v0/pipelines/not-served/diff', 'pipelines/{name}/diff'],
      ['POST', '/v0/pipelines/not-served/checkpoint/sync', 'pipelines/{name}/checkpoint/sync'],
      ['GET', '/v0/pipelines/not-served/checkpoint/sync_status', 'pipelines/{name}/checkpoint/sync_status'],
      ['GET', '/v0/pipelines/not-served/checkpoints/remote', 'pipelines/{name}/checkpoints/remote'],
      ['POST', '/v0/pipelines/not-served/rebalance', 'pipelines/{name}/rebalance'],
      ['POST', '/v0/pipelines/not-served/start_compaction', 'pipelines/{name}/start_compaction'],
      ['POST', '/v0/pipelines/not-served/samply_profile', 'pipelines/{name}/samply_profile'],
      ['GET', '/v0/pipelines/not-served/samply_profile', 'pipelines/{name}/samply_profile'],
      ['POST', '/v0/api_keys', 'api_keys'],
      ['GET', '/v0/tenants', 'tenants'],
      ['PATCH', '/v0/tenants/t1', 'tenants/{tenant}'],
      ['DELETE', '/v0/oidc_trust/x', 'oidc_trust/{name}'],
    ];
    for (const [method, path, endpoint] of calls) {
      const r = await h.request(method, path);
      expect(r.status, `${method} ${path}`).toBe(501);
      expect(r.body).toEqual({
        error_code: 'NotImplemented',
        message: expect.stringMatching(new RegExp(`^${endpoint.replace(/[{}]/g, '\\$&')} is not available in svc: .+`)),
        details: { endpoint },
      });
    }
    // On a pipeline that does not exist, the 404 the SDK expects comes first.
    const missing = await h.request('POST', '/v0/pipelines/nope/start_transaction');
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe('UnknownPipelineName');
  });

  it('unknown routes are a 404 error body', async () => {
    const r = await h.request('GET', '/v0/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      message: expect.stringContaining('/v0/nothing-here'),
      error_code: 'NotFound',
      details: null,
    });
  });

  it('accepts Content-Type: application/json with an empty body and with null on body-less calls', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('plat-empty'));
    const empty = await h.request('POST', '/v0/pipelines/plat-empty/start', '', { 'content-type': 'application/json' });
    expect(empty.status).toBe(202);
    const nul = await h.request('POST', '/v0/pipelines/plat-empty/stop?force=true', 'null');
    expect(nul.status).toBe(202);
    const get = await h.request('GET', '/v0/pipelines/plat-empty', undefined, { 'content-type': 'application/json' });
    expect(get.status).toBe(200);
  });

  it('parses a JSON body sent with another content type (curl -d)', async () => {
    const r = await h.request('POST', '/v0/pipelines', JSON.stringify(pipelineBody('plat-form')), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(201);
  });

  it('malformed JSON, a non-object body and wrong member types are 400 MalformedRequest naming the member', async () => {
    const bad = await h.request('POST', '/v0/pipelines', '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('MalformedRequest');
    for (const body of ['[]', '"x"', '42', 'null']) {
      const r = await h.request('POST', '/v0/pipelines', body);
      expect(r.status, body).toBe(400);
      expect(r.body.error_code).toBe('MalformedRequest');
    }
    const typed = await h.request('POST', '/v0/pipelines', { name: 'plat-x', program_code: 5 });
    expect(typed.body).toMatchObject({ error_code: 'MalformedRequest', details: { field: 'program_code' } });
    const unknown = await h.request('POST', '/v0/pipelines', { name: 'plat-x', program_code: '', colour: 'red' });
    expect(unknown.body.message).toContain('colour');
  });

  it('bodies over 10 MiB are 413 PayloadTooLarge', async () => {
    const r = await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('plat-big', { program_code: 'x'.repeat(10 * 1024 * 1024 + 1) }),
    );
    expect(r.status).toBe(413);
    expect(r.body.error_code).toBe('PayloadTooLarge');
    expect((await h.request('GET', '/v0/pipelines/plat-big')).status).toBe(404);
  });

  it.each([
    ['', 'EmptyName'],
    ['a'.repeat(64), 'TooLongName'],
    ['-leading', 'NameDoesNotMatchPattern'],
    ['trailing_', 'NameDoesNotMatchPattern'],
    ['has space', 'NameDoesNotMatchPattern'],
    ['ünicode', 'NameDoesNotMatchPattern'],
  ])('name %j is refused with %s', async (name, code) => {
    const r = await h.request('POST', '/v0/pipelines', pipelineBody(name));
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe(code);
    expect(r.body.details.field).toBe('name');
  });

  it('accepts names at the limits: one character, 63 characters, inner "-" and "_"', async () => {
    for (const name of ['a', 'b'.repeat(63), 'a-b_c9']) {
      expect((await h.request('POST', '/v0/pipelines', pipelineBody(name))).status).toBe(201);
    }
  });

  it('description and tag rules', async () => {
    const long = await h.request('POST', '/v0/pipelines', pipelineBody('plat-d', { description: 'd'.repeat(301) }));
    expect(long.body.error_code).toBe('TooLongDescription');
    expect(
      (await h.request('POST', '/v0/pipelines', pipelineBody('plat-d', { description: 'd'.repeat(300) }))).status,
    ).toBe(201);
    const many = await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('plat-t', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }),
    );
    expect(many.body.error_code).toBe('TooManyTags');
    for (const tag of ['', 't'.repeat(51), 'bad#tag', 'new\nline']) {
      const r = await h.request('POST', '/v0/pipelines', pipelineBody('plat-t', { tags: [tag] }));
      expect(r.body.error_code, JSON.stringify(tag)).toBe('InvalidTag');
      expect(r.body.details.field).toBe('tags[0]');
    }
    const ok = await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('plat-t', { tags: ['a b.c_d/e|f\\g:h=i-j', 't'.repeat(50)] }),
    );
    expect(ok.status).toBe(201);
  });

  it('a request line that Node refuses (a raw non-ASCII byte) answers the documented error body', async () => {
    // The docs' placeholder token pasted as is: its "…" travels as raw UTF-8 bytes, which only a
    // raw socket sends (fetch would percent-encode them).
    const answer = await rawRequest(h.url, 'GET /v0/pipelines/x/completion_status?token=eyJpIjoi\u2026 HTTP/1.1');
    expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.head.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(answer.body)).toEqual({
      message: expect.stringContaining('percent-encoded'),
      error_code: 'MalformedRequest',
      details: { field: 'url', parser_error: expect.stringMatching(/^HPE_/) },
    });
  });
});

/** Sends one request line (and a Host header) as raw UTF-8 bytes; the answer's head and body. */
async function rawRequest(base: string, requestLine: string): Promise<{ head: string; body: string }> {
  const { port, hostname } = new URL(base);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.end(Buffer.from(`${requestLine}\r\nHost: ${hostname}\r\n\r\n`, 'utf8'));
  await once(socket, 'close');
  const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
  return { head, body };
}

describe('API key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('pglite', { apiKey: 'secret-key' });
  });
  afterAll(async () => h.close());

  it('rejects /v0 calls without the key (401 Unauthorized) and accepts the bearer key', async () => {
    const wrong: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: 'secret-key' }];
    for (const headers of wrong) {
      const r = await h.request('GET', '/v0/pipelines', undefined, headers);
      expect(r.status).toBe(401);
      expect(r.body.error_code).toBe('Unauthorized');
    }
    const ok = await h.request('GET', '/v0/pipelines', undefined, { authorization: 'Bearer secret-key' });
    expect(ok.status).toBe(200);
  });

  it('leaves probes, metrics and the API description open', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/v0/openapi.json']) {
      expect((await h.request('GET', path)).status, path).toBe(200);
    }
  });
});
