import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCreateBody } from '../../src/lifecycle/create-body.js';
import type { ManagedBy } from '../../src/model/pipeline-resource.js';
import { finalizeStep } from '../../src/runner/pipeline-resources/steps.js';
import { insertManagedPipeline } from '../../src/store/pipelines/managed.js';
import { selectPipeline } from '../../src/store/pipelines/select.js';
import { type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// A pipeline declared by a Kubernetes Pipeline resource (issue 31) belongs to its resource: REST
// edits, deletes and the desired-state actions answer 409 naming the resource, while reads and the
// actions that do not change what the spec declares still work.

const owner: ManagedBy = { api_version: 'svc.dev/v1alpha1', kind: 'Pipeline', namespace: 'team-a', name: 'orders' };

describe('a pipeline owned by a Pipeline resource', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('pglite');
    const fields = compileCreateBody(pipelineBody('orders'));
    await h.db.transaction((tx) => insertManagedPipeline(tx, randomUUID(), '0.1.0', fields, owner));
    expect((await h.request('POST', '/v0/pipelines', pipelineBody('free'))).status).toBe(201);
  });
  afterAll(async () => h.close());

  it.each([
    ['PUT', '/v0/pipelines/orders', pipelineBody('orders', { description: 'x' }), 'edit'],
    ['PATCH', '/v0/pipelines/orders', { description: 'x' }, 'edit'],
    ['DELETE', '/v0/pipelines/orders', undefined, 'delete'],
    ['POST', '/v0/pipelines/orders/start', undefined, 'start'],
    ['POST', '/v0/pipelines/orders/stop', undefined, 'stop'],
    ['POST', '/v0/pipelines/orders/stop?force=true', undefined, 'stop'],
  ])('%s %s: 409 naming the resource', async (method, path, body, what) => {
    const before = (await h.request('GET', '/v0/pipelines/orders')).body;
    const r = await h.request(method, path, body);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      error_code: 'PipelineManagedByResource',
      details: { pipeline_name: 'orders', resource: owner },
    });
    expect(r.body.message).toContain(`Cannot ${what} pipeline 'orders'`);
    expect(r.body.message).toContain('pipelines.svc.dev/orders in namespace team-a');
    const after = (await h.request('GET', '/v0/pipelines/orders')).body;
    expect(after).toEqual(before);
  });

  it('still answers reads, and keeps the marker out of the record', async () => {
    const r = await h.request('GET', '/v0/pipelines/orders');
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('orders');
    expect(r.body).not.toHaveProperty('managed_by');
    expect((await h.request('GET', '/v0/pipelines')).body.map((p: { name: string }) => p.name)).toContain('orders');
    // The storage is the user's to clear (nothing declares it while the pipeline exists).
    expect((await h.request('POST', '/v0/pipelines/orders/clear')).status).toBe(202);
  });

  it('leaves pipelines made over REST editable', async () => {
    expect((await h.request('PATCH', '/v0/pipelines/free', { description: 'mine' })).status).toBe(200);
    expect((await h.request('POST', '/v0/pipelines/free/start')).status).toBe(202);
    expect((await h.request('POST', '/v0/pipelines/free/stop?force=true')).status).toBe(202);
  });

  it('deleting the resource: Keep hands a record with stored state back to REST, Clear clears it first', async () => {
    const fields = (name: string) => compileCreateBody(pipelineBody(name));
    const kept: ManagedBy = { ...owner, name: 'kept' };
    const cleared: ManagedBy = { ...owner, name: 'cleared' };
    await h.db.transaction((tx) => insertManagedPipeline(tx, randomUUID(), '0.1.0', fields('kept'), kept));
    await h.db.transaction((tx) => insertManagedPipeline(tx, randomUUID(), '0.1.0', fields('cleared'), cleared));
    await h.db.query(`UPDATE pipeline SET storage_status = 'InUse' WHERE name IN ('kept', 'cleared')`);
    const row = async (name: string) => {
      const r = await selectPipeline(h.db, name, 'all');
      if (!r) throw new Error(`no ${name}`);
      return r;
    };

    expect(await finalizeStep(h.db, { owner: kept }, await row('kept'), false)).toMatchObject({ done: true });
    expect((await row('kept')).managed_by).toBeNull();
    expect((await h.request('PATCH', '/v0/pipelines/kept', { description: 'mine now' })).status).toBe(200);

    expect(await finalizeStep(h.db, { owner: cleared }, await row('cleared'), true)).toEqual({
      done: false,
      did: 'clearing storage',
    });
    expect((await row('cleared')).storage_status).toBe('Clearing');
    await h.db.query(`UPDATE pipeline SET storage_status = 'Cleared' WHERE name = 'cleared'`);
    expect(await finalizeStep(h.db, { owner: cleared }, await row('cleared'), true)).toEqual({
      done: true,
      did: 'record deleted',
    });
    expect((await h.request('GET', '/v0/pipelines/cleared')).status).toBe(404);
  });
});
