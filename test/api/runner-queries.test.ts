import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowChanges } from '../../src/lifecycle/changes.js';
import { activePipelineIds, applyIfUnchanged, selectPipelineById } from '../../src/store/runner/queries.js';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// The runner keeps rows between looks and trusts them while their version (the tuple's xmin) is
// unchanged: every kind of write must move it, and a write decided on an old row must not land.

const toDesired = (status: string): RowChanges => ({
  set: { deployment_resources_desired_status: status },
  stamp: [],
  bump: [],
});

describe.each(BACKENDS)('runner row versions on %s', (backend) => {
  let h: Harness;
  let id: string;
  beforeAll(async () => {
    h = await startHarness(backend);
    id = (await h.request('POST', '/v0/pipelines', pipelineBody('versions'))).body.id;
  });
  afterAll(async () => h.close());

  it('a write by someone else that bumps no counter still moves the version, and the old row is refused', async () => {
    const read = await selectPipelineById(h.db, id);
    expect(read?.row_version).toMatch(/^\d+$/);
    // A write outside the API's rules (no refresh_version bump): the version must move all the same.
    await h.db.query("UPDATE pipeline SET description = 'changed behind the runner' WHERE id = $1", [id]);
    const again = await selectPipelineById(h.db, id);
    expect(again?.row_version).not.toBe(read?.row_version);
    expect(await applyIfUnchanged(h.db, read!, toDesired('Provisioned'))).toBeUndefined();
    expect((await selectPipelineById(h.db, id))?.deployment_resources_desired_status).toBe('Stopped');
  });

  it('a write on the current row lands and returns the row as written, with the version a new read gives', async () => {
    const read = await selectPipelineById(h.db, id);
    const written = await applyIfUnchanged(h.db, read!, toDesired('Provisioned'));
    expect(written?.deployment_resources_desired_status).toBe('Provisioned');
    expect(written?.row_version).not.toBe(read?.row_version);
    const reread = await selectPipelineById(h.db, id);
    expect(reread).toEqual(written);
    // The runner's row never carries the program texts or program_info.
    expect(written).not.toHaveProperty('program_code');
    expect(written).not.toHaveProperty('program_info');
    // The poll sees the same version for the same row.
    const active = await activePipelineIds(h.db);
    expect(active.find((p) => p.id === id)?.row_version).toBe(written?.row_version);
    // Reading does not move it.
    expect((await selectPipelineById(h.db, id))?.row_version).toBe(written?.row_version);
  });

  it('an API edit moves the version', async () => {
    const read = await selectPipelineById(h.db, id);
    const res = await h.request('PATCH', '/v0/pipelines/versions', { description: 'edited' });
    expect(res.status).toBe(200);
    expect((await selectPipelineById(h.db, id))?.row_version).not.toBe(read?.row_version);
  });
});

// Real concurrency needs a server: PGlite has one connection, so statements never overlap there.
describe('runner row versions under concurrency (postgres)', () => {
  let h: Harness;
  let id: string;
  beforeAll(async () => {
    h = await startHarness('postgres');
    id = (await h.request('POST', '/v0/pipelines', pipelineBody('racing'))).body.id;
  });
  afterAll(async () => h.close());

  it('a write racing a concurrent transaction that changes the row waits for it, then does not land', async () => {
    const read = await selectPipelineById(h.db, id);
    let racing: Promise<unknown> | undefined;
    await h.db.transaction(async (tx) => {
      await tx.query("UPDATE pipeline SET description = 'concurrent' WHERE id = $1", [id]);
      // On another connection: blocks on the row lock until this transaction commits.
      racing = applyIfUnchanged(h.db, read!, toDesired('Stopped'));
      await new Promise((r) => setTimeout(r, 200));
    });
    expect(await racing).toBeUndefined();
    expect((await selectPipelineById(h.db, id))?.description).toBe('concurrent');
  });
});
