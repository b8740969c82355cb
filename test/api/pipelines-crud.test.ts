import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineRecord } from '../../src/model/pipeline.js';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

const RFC3339_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** Every member of selector=all: seed 2.1 (but `connectors`) and the start's bootstrap_policy. */
const ALL_MEMBERS = [
  'id',
  'name',
  'description',
  'tags',
  'created_at',
  'version',
  'platform_version',
  'runtime_config',
  'program_code',
  'udf_rust',
  'udf_toml',
  'program_config',
  'program_version',
  'program_status',
  'program_status_since',
  'program_error',
  'program_info',
  'deployment_status',
  'deployment_status_since',
  'deployment_desired_status',
  'deployment_desired_status_since',
  'deployment_error',
  'refresh_version',
  'storage_status',
  'storage_status_details',
  'deployment_resources_status',
  'deployment_resources_status_details',
  'deployment_resources_status_since',
  'deployment_resources_desired_status',
  'deployment_resources_desired_status_since',
  'deployment_runtime_status',
  'deployment_runtime_status_details',
  'deployment_runtime_status_since',
  'deployment_runtime_desired_status',
  'deployment_runtime_desired_status_since',
  'deployment_initial',
  'deployment_id',
  'bootstrap_policy',
];
const HEAVY = [
  'runtime_config',
  'program_code',
  'udf_rust',
  'udf_toml',
  'program_error',
  'program_info',
  'deployment_resources_status_details',
];

describe.each(BACKENDS)('pipelines CRUD on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h.close());

  it('creates a pipeline with every required field of seed 2.1 present and typed', async () => {
    const r = await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('crud-create', { description: 'd', tags: ['a', 'b'] }),
    );
    expect(r.status).toBe(201);
    expect(PipelineRecord.strict().safeParse(r.body).success).toBe(true);
    expect(r.body).toMatchObject({
      name: 'crud-create',
      description: 'd',
      tags: ['a', 'b'],
      platform_version: '0.1.0',
      version: 1,
      program_version: 1,
      refresh_version: 1,
      deployment_status: 'Stopped',
      deployment_desired_status: 'Stopped',
      deployment_resources_status: 'Stopped',
      deployment_resources_desired_status: 'Stopped',
      program_status: 'Pending',
      storage_status: 'Cleared',
      udf_rust: '',
      udf_toml: '',
      program_error: {},
      program_config: { cache: true, use_platform_compiler: false },
    });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    for (const k of Object.keys(r.body).filter((k) => k.endsWith('_since') || k === 'created_at')) {
      if (r.body[k] !== null) expect(r.body[k], k).toMatch(RFC3339_MICROS);
    }
    // Unset members are there as null, as the established API sends them (its SDK reads them as attributes).
    expect(r.body).toHaveProperty('deployment_id', null);
    expect(r.body).toHaveProperty('program_info', null);
    expect(r.body).toHaveProperty('deployment_error', null);
    expect(r.body).toHaveProperty('deployment_runtime_status_since', null);
  });

  it('fills missing strings with "" and missing objects with their defaults', async () => {
    const r = await h.request('POST', '/v0/pipelines', { name: 'crud-minimal', program_code: '' });
    expect(r.status).toBe(201);
    expect(r.body.description).toBe('');
    expect(r.body.tags).toEqual([]);
    expect(r.body.runtime_config.workers).toBe(8);
  });

  it('gets one pipeline; 404 UnknownPipelineName for an unknown one', async () => {
    const r = await h.request('GET', '/v0/pipelines/crud-create');
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('crud-create');
    const missing = await h.request('GET', '/v0/pipelines/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      message: expect.stringContaining('nope'),
      error_code: 'UnknownPipelineName',
      details: { pipeline_name: 'nope' },
    });
  });

  it('projects selector=status without the large fields (keys absent) and keeps the rest', async () => {
    const all = await h.request('GET', '/v0/pipelines/crud-create?selector=all');
    const status = await h.request('GET', '/v0/pipelines/crud-create?selector=status');
    const withConnectors = await h.request('GET', '/v0/pipelines/crud-create?selector=status_with_connectors');
    for (const k of HEAVY) {
      expect(status.body, k).not.toHaveProperty(k);
      expect(withConnectors.body, k).not.toHaveProperty(k);
    }
    const expected = { ...all.body };
    for (const k of HEAVY) delete expected[k];
    expect(status.body).toEqual(expected);
    expect(all.body).toHaveProperty('program_code');
    expect(all.body).toHaveProperty('runtime_config');
    // Exactly the members the established API lists for each selector (its platform tests compare the
    // key sets), unset ones as null.
    expect(Object.keys(all.body).sort()).toEqual([...ALL_MEMBERS].sort());
    expect(Object.keys(status.body).sort()).toEqual(ALL_MEMBERS.filter((k) => !HEAVY.includes(k)).sort());
    expect(Object.keys(withConnectors.body).sort()).toEqual(
      [...ALL_MEMBERS.filter((k) => !HEAVY.includes(k)), 'connectors'].sort(),
    );
    expect(withConnectors.body.connectors).toBeNull(); // never deployed: the pipeline cannot be asked
  });

  it('rejects an unknown selector with 400 InvalidSelector naming it', async () => {
    for (const path of ['/v0/pipelines/crud-create?selector=everything', '/v0/pipelines?selector=']) {
      const r = await h.request('GET', path);
      expect(r.status).toBe(400);
      expect(r.body.error_code).toBe('InvalidSelector');
      expect(r.body.message).toContain('selector');
    }
  });

  it('lists pipelines ordered by name, with each selector', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('crud-a'));
    const r = await h.request('GET', '/v0/pipelines');
    expect(r.status).toBe(200);
    const names = (r.body as { name: string }[]).map((p) => p.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('crud-a');
    const s = await h.request('GET', '/v0/pipelines?selector=status');
    expect((s.body as object[]).every((p) => !('program_code' in p))).toBe(true);
    expect((s.body as object[]).length).toBe(names.length);
  });

  it('refuses a duplicate name with 409 DuplicateName', async () => {
    const r = await h.request('POST', '/v0/pipelines', pipelineBody('crud-a'));
    expect(r.status).toBe(409);
    expect(r.body.error_code).toBe('DuplicateName');
  });

  it('PATCH of program fields bumps version, program_version and refresh_version and resets compilation', async () => {
    const before = (await h.request('GET', '/v0/pipelines/crud-a')).body;
    const r = await h.request('PATCH', '/v0/pipelines/crud-a', { program_code: 'CREATE TABLE u (y INT);' });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(before.version + 1);
    expect(r.body.program_version).toBe(before.program_version + 1);
    expect(r.body.refresh_version).toBe(before.refresh_version + 1);
    expect(r.body.program_status).toBe('Pending');
    expect(r.body.program_code).toBe('CREATE TABLE u (y INT);');
  });

  it('PATCH of runtime_config bumps version but not program_version', async () => {
    const before = (await h.request('GET', '/v0/pipelines/crud-a')).body;
    const r = await h.request('PATCH', '/v0/pipelines/crud-a', { runtime_config: { workers: 3 } });
    expect(r.body.version).toBe(before.version + 1);
    expect(r.body.program_version).toBe(before.program_version);
    expect(r.body.runtime_config.workers).toBe(3);
  });

  it('PATCH of description and tags bumps no counter (as the established API); a no-op bumps nothing', async () => {
    const before = (await h.request('GET', '/v0/pipelines/crud-a')).body;
    const r = await h.request('PATCH', '/v0/pipelines/crud-a', { description: 'new', tags: ['x'] });
    expect(r.body).toMatchObject({
      description: 'new',
      tags: ['x'],
      version: before.version,
      program_version: before.program_version,
      refresh_version: before.refresh_version,
    });
    const again = await h.request('PATCH', '/v0/pipelines/crud-a', {
      description: 'new',
      program_code: r.body.program_code,
    });
    expect(again.status).toBe(200);
    expect(again.body.refresh_version).toBe(r.body.refresh_version);
    expect(again.body.version).toBe(r.body.version);
  });

  it('PUT creates (201), replaces (200), renames, and refuses to rename a missing pipeline', async () => {
    const created = await h.request('PUT', '/v0/pipelines/crud-put', pipelineBody('crud-put'));
    expect(created.status).toBe(201);
    const replaced = await h.request('PUT', '/v0/pipelines/crud-put', pipelineBody('crud-put', { description: 'r' }));
    expect(replaced.status).toBe(200);
    expect(replaced.body.description).toBe('r');
    expect(replaced.body.id).toBe(created.body.id);
    const renamed = await h.request('PUT', '/v0/pipelines/crud-put', pipelineBody('crud-put2'));
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'crud-put2', id: created.body.id, version: replaced.body.version + 1 });
    expect((await h.request('GET', '/v0/pipelines/crud-put')).status).toBe(404);
    const missing = await h.request('PUT', '/v0/pipelines/ghost', pipelineBody('other'));
    expect(missing.status).toBe(400);
    expect(missing.body.error_code).toBe('CannotRenameNonExistingPipeline');
    const onto = await h.request('PATCH', '/v0/pipelines/crud-put2', { name: 'crud-a' });
    expect(onto.status).toBe(409);
    expect(onto.body.error_code).toBe('DuplicateName');
  });

  it('DELETE answers 200 with an empty body, then the pipeline is gone', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('crud-del'));
    const r = await h.request('DELETE', '/v0/pipelines/crud-del');
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect((await h.request('GET', '/v0/pipelines/crud-del')).status).toBe(404);
    expect((await h.request('DELETE', '/v0/pipelines/crud-del')).status).toBe(404);
  });

  it('logs "pipeline created" with the pipeline identity at the top level', () => {
    const line = h.logs.find((l) => (l['fields'] as { message?: string }).message === 'pipeline created');
    expect(line).toMatchObject({
      'svc-service': 'manager',
      'pipeline-name': 'crud-create',
      target: 'svc::api::pipelines',
    });
    expect(line?.['pipeline-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
