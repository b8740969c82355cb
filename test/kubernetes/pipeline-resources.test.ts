import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES } from '../../src/runner/backends/kubernetes/rbac.js';
import { createNamespace, deleteNamespace, waitFor } from '../cluster/helpers.js';
import { client, objectsOf, type RunnerWorld, startRunner, startWorld } from './harness.js';
import { conditionOf, installCrd, type Json, pipelines } from './pipeline-resources.js';

// Issue 31: pipelines as Kubernetes resources. The chart's CRD on the real control plane, the runner
// with --pipeline-resources and only the chart's Role, pipelines run by the node agent.

let world: RunnerWorld;
/** A further namespace the runner keeps Pipelines of (--pipeline-resources-namespaces), granted as the chart grants it. */
let team = '';
/** A namespace it does not keep: its Pipelines are left alone. */
let other = '';
beforeAll(async () => {
  world = await startWorld('crd');
  await installCrd(world.admin);
  team = await createNamespace(world.admin, 'crd-team');
  other = await createNamespace(world.admin, 'crd-other');
  const rbac = world.admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  const name = 'svc-runner-pipelines';
  await rbac.createNamespacedRole({
    namespace: team,
    body: { metadata: { name }, rules: [...PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: team,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: 'svc-runner', namespace: world.namespace }],
    },
  });
  await startRunner(world, [
    '--pipeline-resources',
    '--pipeline-resources-namespaces',
    team,
    // The API's allowlist of service accounts, as the chart gives it to the runner too.
    '--pipeline-service-accounts',
    'svc-pipeline',
  ]);
});
afterAll(async () => {
  for (const ns of [team, other]) if (ns) await deleteNamespace(world.admin, ns).catch(() => undefined);
  await world?.close();
});

const SQL = 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x FROM t;';
const SQL2 = 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x + 1 AS y FROM t;';

/** Polls the resource until `pred` holds; the failure shows the last resource. */
async function until(
  name: string,
  pred: (r: Json) => boolean,
  what: string,
  timeoutMs = 180_000,
  namespace = world.namespace,
): Promise<Json> {
  const api = pipelines(world.admin, namespace);
  let last: Json = {};
  try {
    return await waitFor(`${name}: ${what}`, timeoutMs, async () => {
      last = await api.get(name);
      return pred(last) ? last : undefined;
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status: ${JSON.stringify(last['status'])}`, { cause: error });
  }
}

const isTrue = (type: string) => (r: Json) => conditionOf(r, type)?.['status'] === 'True';
const statusOf = (r: Json) => (r['status'] ?? {}) as Json;

async function eventsOf(name: string): Promise<string[]> {
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  const list = await core.listNamespacedEvent({
    namespace: world.namespace,
    fieldSelector: `involvedObject.name=${name},involvedObject.kind=Pipeline`,
  });
  return list.items.map((e) => e.reason ?? '');
}

describe('Pipeline resources', { timeout: 900_000 }, () => {
  it('apply → Compiled → Ready → new SQL restarts it → REST refused → Stopped → delete removes the record', async () => {
    const k = pipelines(world.admin, world.namespace);
    const rest = client(world);
    await k.create('orders', {
      description: 'orders',
      program: { sql: SQL },
      desired_state: 'Running',
      storage_on_delete: 'Clear',
    });

    const ready = await until('orders', (r) => isTrue('Compiled')(r) && isTrue('Ready')(r), 'Compiled and Ready');
    expect((ready['metadata'] as Json)['finalizers']).toEqual(['svc.dev/pipeline-record']);
    expect(statusOf(ready)).toMatchObject({
      observedGeneration: 1,
      program_status: 'Success',
      deployment_status: 'Running',
      deployment_desired_status: 'Running',
    });
    expect(statusOf(ready)).not.toHaveProperty('deployment_error');
    const id = String(statusOf(ready)['pipeline_id']);
    const objects = await objectsOf(world, id);
    expect(objects.pods.map((p) => p.status?.phase)).toEqual(['Running']);
    const record = (await rest.call('GET', '/v0/pipelines/orders')).body;
    expect(record).toMatchObject({ id, description: 'orders', program_code: SQL, deployment_status: 'Running' });

    // Steady state writes nothing: the controller looks every second, and the status did not change.
    const version = (ready['metadata'] as Json)['resourceVersion'];
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(((await k.get('orders'))['metadata'] as Json)['resourceVersion']).toBe(version);

    // `kubectl get pipelines`: NAME, STATUS, PROGRAM, AGE.
    const table = await k.table();
    expect(table.columns).toEqual(['Name', 'Status', 'Program', 'Desired', 'Age']);
    expect(table.rows[0]?.slice(0, 3)).toEqual(['orders', 'Running', 'Success']);

    // REST edits and start/stop are the resource's: 409 naming it; reads and data-path calls still work.
    const patch = await rest.call('PATCH', '/v0/pipelines/orders', { description: 'mine' });
    expect(patch.status).toBe(409);
    expect(patch.body).toMatchObject({
      error_code: 'PipelineManagedByResource',
      details: { resource: { namespace: world.namespace, name: 'orders' } },
    });
    expect((await rest.call('POST', '/v0/pipelines/orders/stop?force=true')).status).toBe(409);
    expect((await rest.call('GET', '/v0/pipelines/orders/stats')).status).toBe(200);

    // A new program: stopped, edited, recompiled and started again (the edit rules of PUT).
    const deployment = record['deployment_id'];
    await k.patchSpec('orders', { program: { sql: SQL2 } });
    const again = await until(
      'orders',
      (r) => statusOf(r)['observedGeneration'] === 2 && isTrue('Ready')(r) && isTrue('Compiled')(r),
      'generation 2 Ready',
    );
    expect(statusOf(again)['deployment_status']).toBe('Running');
    const edited = (await rest.call('GET', '/v0/pipelines/orders')).body;
    expect(edited['program_code']).toBe(SQL2);
    expect(edited['program_version']).toBe(2);
    expect(edited['deployment_id']).not.toBe(deployment);

    // Desired Stopped: the pod goes, the resource is Ready in its new desired state.
    await k.patchSpec('orders', { desired_state: 'Stopped' });
    await until('orders', (r) => statusOf(r)['deployment_status'] === 'Stopped' && isTrue('Ready')(r), 'Stopped');
    expect((await objectsOf(world, id)).pods).toEqual([]);

    const reasons = await eventsOf('orders');
    for (const reason of ['Created', 'Starting', 'Compiled', 'Ready', 'Stopping', 'Updated']) {
      expect(reasons).toContain(reason);
    }

    // Delete: the finalizer stops the pipeline (already), clears its storage (the spec says Clear),
    // deletes the record, then lets the resource go.
    await k.delete('orders');
    await waitFor('orders gone', 120_000, async () =>
      (await k
        .get('orders')
        .catch((e: unknown) => (e instanceof k8s.ApiException && e.code === 404 ? 'gone' : undefined))) === 'gone'
        ? true
        : undefined,
    );
    expect((await rest.call('GET', '/v0/pipelines/orders')).status).toBe(404);
    expect((await objectsOf(world, id)).pvcs).toEqual([]);
  });

  it('refuses an invalid spec in the API server, as PUT refuses the same body', async () => {
    const k = pipelines(world.admin, world.namespace);
    const refused = async (name: string, spec: Json) => {
      const error = await k.create(name, spec).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(k8s.ApiException);
      return error as k8s.ApiException<string>;
    };
    const bad = [
      ['workers', { program: { sql: SQL }, runtime_config: { workers: 0 } }],
      ['desired_state', { program: { sql: SQL }, desired_state: 'Flying' }],
      ['description', { program: { sql: SQL }, description: 'x'.repeat(301) }],
      ['sql', { program: {} }],
    ] as const;
    for (const [field, spec] of bad) {
      const e = await refused(`bad-${field.replace('_', '-')}`, spec);
      expect(e.code).toBe(422);
      expect(String(e.body)).toContain(field);
      const put = await client(world).call('PUT', '/v0/pipelines/bad', {
        name: 'bad',
        program_code: 'program' in spec && 'sql' in spec.program ? spec.program.sql : undefined,
        ...('runtime_config' in spec && { runtime_config: spec.runtime_config }),
        ...('description' in spec && { description: spec.description }),
      });
      if (field !== 'desired_state') expect(put.status).toBe(400);
    }
    // The name is the pipeline's: at most 63 characters, no dots (a CEL rule of the CRD).
    expect((await refused('has.a.dot', { program: { sql: SQL } })).code).toBe(422);
  });

  it('shows a failing program as Compiled=False with the compiler error', async () => {
    const k = pipelines(world.admin, world.namespace);
    await k.create('broken', { program: { sql: 'CREATE VIEW v AS SELECT * FROM missing_table;' } });
    const failed = await until('broken', (r) => conditionOf(r, 'Compiled')?.['status'] === 'False', 'Compiled=False');
    expect(conditionOf(failed, 'Compiled')).toMatchObject({ reason: 'SqlError' });
    expect(String(conditionOf(failed, 'Compiled')?.['message'])).toContain('missing_table');
    expect(conditionOf(failed, 'Degraded')).toMatchObject({ status: 'True' });
    expect(statusOf(failed)['program_error']).toBeTruthy();
    await k.delete('broken');
    await waitFor('broken record gone', 60_000, async () =>
      (await client(world).call('GET', '/v0/pipelines/broken')).status === 404 ? true : undefined,
    );
  });

  it('refuses a spec member the API server cannot type (a size of any JSON type) with a condition naming it, once', async () => {
    const k = pipelines(world.admin, world.namespace);
    // runtime_config.resources.memory_max is "4Gi" or 4096 to zod, so the CRD leaves it untyped and
    // the API server lets any value through: the controller's check is the one that refuses it.
    await k.create('untyped', {
      program: { sql: SQL },
      desired_state: 'Stopped',
      runtime_config: { resources: { memory_max: { lots: true } } },
    });
    const refused = await until('untyped', (r) => conditionOf(r, 'Degraded')?.['status'] === 'True', 'Degraded');
    expect(conditionOf(refused, 'Degraded')).toMatchObject({ reason: 'InvalidRuntimeConfig' });
    expect(String(conditionOf(refused, 'Degraded')?.['message'])).toContain('runtime_config.resources.memory_max');
    expect(conditionOf(refused, 'Ready')).toMatchObject({ status: 'False', reason: 'InvalidRuntimeConfig' });
    expect((await client(world).call('GET', '/v0/pipelines/untyped')).status).toBe(404);
    // Written once, not at every look: the controller neither crashes nor loops on it.
    const version = (refused['metadata'] as Json)['resourceVersion'];
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(((await k.get('untyped'))['metadata'] as Json)['resourceVersion']).toBe(version);
    // Fixed in the spec: the record is made, the resource Ready in its desired state.
    await k.patchSpec('untyped', { runtime_config: { resources: { memory_max: '1Gi' } } });
    await until('untyped', isTrue('Ready'), 'Ready after the fix');
    expect((await client(world).call('GET', '/v0/pipelines/untyped')).status).toBe(200);
    await k.delete('untyped');
    await waitFor('untyped record gone', 60_000, async () =>
      (await client(world).call('GET', '/v0/pipelines/untyped')).status === 404 ? true : undefined,
    );
  });

  it("starts a resource's pipeline only within the API's bounds: an account outside the allowlist is refused, named", async () => {
    const k = pipelines(world.admin, world.namespace);
    await k.create('identity', {
      program: { sql: SQL },
      runtime_config: { resources: { service_account_name: 'svc-runner' } },
    });
    const refused = await until('identity', (r) => conditionOf(r, 'Degraded')?.['status'] === 'True', 'Degraded');
    expect(conditionOf(refused, 'Degraded')).toMatchObject({ reason: 'InvalidRuntimeConfig' });
    expect(String(conditionOf(refused, 'Degraded')?.['message'])).toContain(
      'runtime_config.resources.service_account_name',
    );
    // The record is there (created, compiled) but was never started.
    const record = (await client(world).call('GET', '/v0/pipelines/identity')).body;
    expect(record).toMatchObject({ deployment_status: 'Stopped', deployment_desired_status: 'Stopped' });
    await k.delete('identity');
    await waitFor('identity record gone', 60_000, async () =>
      (await client(world).call('GET', '/v0/pipelines/identity')).status === 404 ? true : undefined,
    );
  });

  it('keeps the Pipelines of a further namespace it is given, and leaves the others alone', async () => {
    const mine = pipelines(world.admin, team);
    await mine.create('team-orders', { program: { sql: SQL }, desired_state: 'Stopped' });
    await pipelines(world.admin, other).create('elsewhere', { program: { sql: SQL }, desired_state: 'Stopped' });
    await until('team-orders', isTrue('Ready'), 'Ready', 180_000, team);
    const patch = await client(world).call('PATCH', '/v0/pipelines/team-orders', { description: 'mine' });
    expect(patch.status).toBe(409);
    expect(patch.body).toMatchObject({ details: { resource: { namespace: team, name: 'team-orders' } } });
    // Events about the resource are written in its namespace (the Role there grants them).
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const events = await core.listNamespacedEvent({
      namespace: team,
      fieldSelector: 'involvedObject.name=team-orders',
    });
    expect(events.items.map((e) => e.reason)).toContain('Created');
    // Not kept: no finalizer, no status, no record.
    const ignored = await pipelines(world.admin, other).get('elsewhere');
    expect(ignored['status']).toBeUndefined();
    expect((ignored['metadata'] as Json)['finalizers']).toBeUndefined();
    expect((await client(world).call('GET', '/v0/pipelines/elsewhere')).status).toBe(404);
    await mine.delete('team-orders');
    await waitFor('team-orders record gone', 60_000, async () =>
      (await client(world).call('GET', '/v0/pipelines/team-orders')).status === 404 ? true : undefined,
    );
  });
});
