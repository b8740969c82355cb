import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// The desired-state actions and the edit rules that depend on them. Without a runner nothing moves
// the observed status, so states the runner would produce are set in the database directly (the
// runner's own columns), then the API is asked.

describe.each(BACKENDS)('lifecycle actions and edit rules on %s', (backend) => {
  let h: Harness;
  let n = 0;
  const fresh = async (extra: Record<string, unknown> = {}) => {
    const name = `act-${n++}`;
    const r = await h.request('POST', '/v0/pipelines', pipelineBody(name, extra));
    expect(r.status).toBe(201);
    return name;
  };
  const setColumns = async (name: string, sets: string) =>
    h.db.query(`UPDATE pipeline SET ${sets} WHERE name = $1`, [name]);
  const get = async (name: string) => (await h.request('GET', `/v0/pipelines/${name}`)).body;

  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h.close());

  it('/start records the desired status (202, bare JSON string); the observed status stays Stopped', async () => {
    const name = await fresh();
    const before = await get(name);
    const r = await h.request('POST', `/v0/pipelines/${name}/start`);
    expect(r.status).toBe(202);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.body).toBe('Pipeline is starting');
    const after = await get(name);
    expect(after).toMatchObject({
      deployment_resources_desired_status: 'Provisioned',
      deployment_resources_status: 'Stopped',
      deployment_status: 'Stopped',
      deployment_desired_status: 'Running',
      deployment_initial: 'Running',
      version: before.version,
      refresh_version: before.refresh_version + 1,
    });
    expect(after.deployment_resources_desired_status_since > before.deployment_resources_desired_status_since).toBe(
      true,
    );
    // A second identical start changes nothing.
    expect((await h.request('POST', `/v0/pipelines/${name}/start`)).status).toBe(202);
    expect((await get(name)).refresh_version).toBe(after.refresh_version);
  });

  it('/start?initial=paused sets deployment_initial Paused; a different initial later is refused', async () => {
    const name = await fresh();
    expect((await h.request('POST', `/v0/pipelines/${name}/start?initial=paused`)).status).toBe(202);
    expect(await get(name)).toMatchObject({ deployment_initial: 'Paused', deployment_desired_status: 'Paused' });
    const r = await h.request('POST', `/v0/pipelines/${name}/start?initial=running`);
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe('InitialImmutableUnlessStopped');
    const b = await h.request('POST', `/v0/pipelines/${name}/start?bootstrap_policy=reject`);
    expect(b.body.error_code).toBe('BootstrapPolicyImmutableUnlessStopped');
    const bad = await h.request('POST', `/v0/pipelines/${name}/start?initial=sprinting`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('initial');
  });

  it('/start?initial=standby needs a storage backend that can sync', async () => {
    const name = await fresh();
    const r = await h.request('POST', `/v0/pipelines/${name}/start?initial=standby`);
    expect(r.body.error_code).toBe('InitialStandbyNotAllowed');
    const ok = await fresh({
      runtime_config: { storage: { backend: { name: 'file', config: { sync: { bucket: 'b' } } } } },
    });
    expect((await h.request('POST', `/v0/pipelines/${ok}/start?initial=standby`)).status).toBe(202);
    expect((await get(ok)).deployment_initial).toBe('Standby');
  });

  it('/start refuses in the documented order', async () => {
    const stopping = await fresh();
    await setColumns(stopping, "deployment_resources_status = 'Stopping'");
    expect((await h.request('POST', `/v0/pipelines/${stopping}/start`)).body.error_code).toBe('IllegalPipelineAction');

    const errored = await fresh();
    await setColumns(
      errored,
      `deployment_error = '{"message":"m","error_code":"ProvisioningTimeout","details":{"timeout_secs":5}}'`,
    );
    const r = await h.request('POST', `/v0/pipelines/${errored}/start?dismiss_error=false`);
    expect(r.body.error_code).toBe('CannotStartWithUndismissedError');
    // dismiss_error defaults to true: the start clears the error.
    expect((await h.request('POST', `/v0/pipelines/${errored}/start`)).status).toBe(202);
    expect(await get(errored)).toHaveProperty('deployment_error', null);

    const clearing = await fresh();
    await setColumns(clearing, "storage_status = 'Clearing'");
    expect((await h.request('POST', `/v0/pipelines/${clearing}/start`)).body.error_code).toBe(
      'CannotStartWhileClearingStorage',
    );

    for (const status of ['SqlError', 'RustError', 'SystemError']) {
      const failed = await fresh();
      await setColumns(failed, `program_status = '${status}'`);
      expect((await h.request('POST', `/v0/pipelines/${failed}/start`)).body.error_code).toBe(
        'CannotStartWithCompilationError',
      );
    }
  });

  it('/stop?force=true sets desired Stopped; /stop without force on an undeployed pipeline does the same', async () => {
    for (const query of ['?force=true', '']) {
      const name = await fresh();
      await h.request('POST', `/v0/pipelines/${name}/start`);
      const r = await h.request('POST', `/v0/pipelines/${name}/stop${query}`);
      expect(r.status).toBe(202);
      expect(r.body).toBe(query ? 'Pipeline is forcefully stopping' : 'Pipeline is stopping');
      const after = await get(name);
      expect(after).toMatchObject({
        deployment_resources_desired_status: 'Stopped',
        deployment_desired_status: 'Stopped',
      });
      expect(after).toHaveProperty('deployment_initial', null);
    }
  });

  it('core fields change only while fully stopped; description and tags any time', async () => {
    const name = await fresh();
    await h.request('POST', `/v0/pipelines/${name}/start`);
    const before = await get(name);
    for (const patch of [
      { program_code: 'x' },
      { runtime_config: { workers: 2 } },
      { name: `${name}-x` },
      { udf_toml: 'a' },
      { program_config: { cache: false } },
    ]) {
      const r = await h.request('PATCH', `/v0/pipelines/${name}`, patch);
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.error_code).toBe('UpdateRestrictedToStopped');
    }
    expect((await get(name)).version).toBe(before.version);
    const ok = await h.request('PATCH', `/v0/pipelines/${name}`, { description: 'while running', tags: ['t'] });
    expect(ok.status).toBe(200);
    await h.request('POST', `/v0/pipelines/${name}/stop?force=true`);
    expect((await h.request('PATCH', `/v0/pipelines/${name}`, { program_code: 'x' })).status).toBe(200);
  });

  it('storage-bound fields cannot change until storage is Cleared, and details list them', async () => {
    const name = await fresh({ runtime_config: { workers: 4 } });
    await setColumns(name, "storage_status = 'InUse'");
    const r = await h.request('PATCH', `/v0/pipelines/${name}`, {
      runtime_config: {
        workers: 2,
        hosts: 2,
        fault_tolerance: {},
        resources: { storage_mb_max: 5, namespace: 'n', storage_class: 's' },
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe('EditRestrictedToClearedStorage');
    expect(r.body.details.not_allowed).toEqual([
      'runtime_config.workers',
      'runtime_config.hosts',
      'runtime_config.fault_tolerance',
      'runtime_config.resources.storage_mb_max',
      'runtime_config.resources.namespace',
      'runtime_config.resources.storage_class',
    ]);
    const rename = await h.request('PATCH', `/v0/pipelines/${name}`, { name: `${name}-new` });
    expect(rename.body.details.not_allowed).toEqual(['name']);
    // Other members may change.
    expect(
      (await h.request('PATCH', `/v0/pipelines/${name}`, { runtime_config: { workers: 4, logging: 'debug' } })).status,
    ).toBe(200);
  });

  it('/clear: InUse → Clearing (202), Cleared is a no-op 202, refused unless fully stopped', async () => {
    const name = await fresh();
    const cleared = await h.request('POST', `/v0/pipelines/${name}/clear`);
    expect(cleared.status).toBe(202);
    expect(cleared.body).toBe('Pipeline storage is being cleared');
    expect((await get(name)).storage_status).toBe('Cleared');
    await setColumns(name, "storage_status = 'InUse', storage_status_details = '{\"checkpoints\":[]}'");
    expect((await h.request('POST', `/v0/pipelines/${name}/clear`)).status).toBe(202);
    const after = await get(name);
    expect(after.storage_status).toBe('Clearing');
    expect(after).toHaveProperty('storage_status_details', null);
    const running = await fresh();
    await h.request('POST', `/v0/pipelines/${running}/start`);
    const refused = await h.request('POST', `/v0/pipelines/${running}/clear`);
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe('StorageStatusImmutableUnlessStopped');
  });

  it('DELETE needs a fully stopped pipeline with cleared storage', async () => {
    const started = await fresh();
    await h.request('POST', `/v0/pipelines/${started}/start`);
    expect((await h.request('DELETE', `/v0/pipelines/${started}`)).body.error_code).toBe(
      'DeleteRestrictedToFullyStopped',
    );
    const inUse = await fresh();
    await setColumns(inUse, "storage_status = 'InUse'");
    expect((await h.request('DELETE', `/v0/pipelines/${inUse}`)).body.error_code).toBe(
      'DeleteRestrictedToClearedStorage',
    );
    expect((await get(inUse)).name).toBe(inUse);
  });

  it('/dismiss_error clears the error of a stopped pipeline', async () => {
    const name = await fresh();
    await setColumns(name, `deployment_error = '{"message":"m","error_code":"TemplateError","details":null}'`);
    const r = await h.request('POST', `/v0/pipelines/${name}/dismiss_error`);
    expect(r.status).toBe(200);
    expect(await get(name)).toHaveProperty('deployment_error', null);
  });

  it('forwarded endpoints answer 503 PipelineInteractionNotDeployed while not deployed, 404 when unknown', async () => {
    const name = await fresh();
    const calls: Array<[string, string]> = [
      ['POST', 'pause'],
      ['POST', 'resume'],
      ['POST', 'activate'],
      ['POST', 'approve'],
      ['POST', 'checkpoint'],
      ['GET', 'stats'],
      ['GET', 'metrics'],
      ['GET', 'logs'],
    ];
    for (const [method, what] of calls) {
      const r = await h.request(method, `/v0/pipelines/${name}/${what}`);
      expect(r.status, what).toBe(503);
      expect(r.body.error_code).toBe('PipelineInteractionNotDeployed');
      expect((await h.request(method, `/v0/pipelines/nope/${what}`)).status).toBe(404);
    }
  });

  it('/clock/advance: 400 InvalidClockAdvance for a bad delta or a wall clock, else 503 while not deployed', async () => {
    const wall = await fresh();
    const r = await h.request('POST', `/v0/pipelines/${wall}/clock/advance`, { delta_ms: 10 });
    expect(r.body.error_code).toBe('InvalidClockAdvance');
    const driven = await fresh({ runtime_config: { dev_tweaks: { now_http_driven: true } } });
    for (const body of [{ delta_ms: -1 }, { delta_ms: 'x' }, {}, undefined]) {
      const bad = await h.request('POST', `/v0/pipelines/${driven}/clock/advance`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error_code).toBe('InvalidClockAdvance');
    }
    const ok = await h.request('POST', `/v0/pipelines/${driven}/clock/advance`, { delta_ms: 1000 });
    expect(ok.status).toBe(503);
    expect(ok.body.error_code).toBe('PipelineInteractionNotDeployed');
  });

  it('an unknown action is 405 UnsupportedPipelineAction', async () => {
    const name = await fresh();
    const r = await h.request('POST', `/v0/pipelines/${name}/explode`);
    expect(r.status).toBe(405);
    expect(r.body.error_code).toBe('UnsupportedPipelineAction');
  });
});
