import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// Property: whatever the body or query string, the answer is a 2xx or a 4xx error body, never a
// 500, and a rejected request leaves the database exactly as it was.

const KEYS = [
  'name',
  'description',
  'tags',
  'program_code',
  'udf_rust',
  'udf_toml',
  'runtime_config',
  'program_config',
];
const RC_KEYS = [
  'workers',
  'hosts',
  'env',
  'resources',
  'storage',
  'fault_tolerance',
  'dev_tweaks',
  'pin_cpus',
  'logging',
  'pipeline_template_configmap',
  // The newer clients' duration and size spellings (issue 17).
  'checkpoint_interval',
  'max_rss',
  'provisioning_timeout',
  'memory_max',
];

const jsonish = fc.jsonValue({ maxDepth: 3 });
/** Bodies near the valid shape, so the fuzzer reaches deep validation, not only type errors. */
const nearValid = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 70 }), fc.constantFrom('fz-a', 'fz-b', ''), jsonish),
    description: fc.oneof(fc.string({ maxLength: 320 }), jsonish),
    tags: fc.oneof(fc.array(fc.string({ maxLength: 55 }), { maxLength: 55 }), jsonish),
    program_code: fc.oneof(fc.string(), jsonish),
    runtime_config: fc.oneof(fc.dictionary(fc.constantFrom(...RC_KEYS, 'bogus'), jsonish, { maxKeys: 4 }), jsonish),
    program_config: fc.oneof(
      fc.dictionary(fc.constantFrom('cache', 'profile', 'runtime_version', 'x'), jsonish),
      jsonish,
    ),
  },
  { requiredKeys: [] },
);
const anyBody = fc.oneof(nearValid, fc.dictionary(fc.constantFrom(...KEYS, 'extra'), jsonish), jsonish);

const snapshot = async (h: Harness) =>
  JSON.stringify(await h.db.query('SELECT * FROM pipeline ORDER BY name COLLATE "C"'));

const isErrorBody = (b: unknown): boolean =>
  typeof b === 'object' &&
  b !== null &&
  typeof (b as Record<string, unknown>)['error_code'] === 'string' &&
  typeof (b as Record<string, unknown>)['message'] === 'string' &&
  'details' in b;

describe.each(BACKENDS)('fuzzing the API on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
    await h.request('POST', '/v0/pipelines', pipelineBody('fz-base'));
  });
  afterAll(async () => h.close());

  const check = async (method: string, path: string, body: unknown) => {
    const before = await snapshot(h);
    const r = await h.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    expect(r.status, `${method} ${path} ${JSON.stringify(body)} → ${r.text}`).toBeLessThan(500);
    if (r.status >= 400) {
      expect(isErrorBody(r.body), r.text).toBe(true);
      // A bad configuration names the member at fault, not just the object.
      if (['InvalidRuntimeConfig', 'InvalidProgramConfig'].includes(r.body.error_code))
        expect(r.body.details?.field, r.text).toMatch(/^(runtime|program)_config(\.|\[|$)/);
      expect(await snapshot(h), 'a rejected request changed the database').toBe(before);
    }
    return r;
  };

  it('create bodies', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const r = await check('POST', '/v0/pipelines', body);
        if (r.status === 201) await h.request('DELETE', `/v0/pipelines/${encodeURIComponent(r.body.name)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('patch and put bodies', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, fc.boolean(), async (body, put) => {
        const r = await check(put ? 'PUT' : 'PATCH', '/v0/pipelines/fz-base', body);
        // Keep the target in place for the next run.
        if (r.status < 300 && r.body.name !== 'fz-base')
          await h.request('PATCH', `/v0/pipelines/${encodeURIComponent(r.body.name)}`, { name: 'fz-base' });
      }),
      { numRuns: 150 },
    );
  });

  it('query strings and path names', async () => {
    const param = fc.string({ maxLength: 20 }).map(encodeURIComponent);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('selector', 'initial', 'bootstrap_policy', 'dismiss_error', 'force'),
        param,
        fc.constantFrom(
          'GET /v0/pipelines',
          'GET /v0/pipelines/fz-base',
          'POST /v0/pipelines/fz-base/start',
          'POST /v0/pipelines/fz-base/stop',
        ),
        fc.oneof(fc.constant('fz-base'), param),
        async (key, value, route, name) => {
          const [method, path] = route.split(' ') as [string, string];
          await check(method, `${path.replace('fz-base', name || 'x')}?${key}=${value}`, undefined);
          await h.request('POST', '/v0/pipelines/fz-base/stop?force=true');
        },
      ),
      { numRuns: 150 },
    );
  });
});
