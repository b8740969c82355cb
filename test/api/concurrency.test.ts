import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

describe.each(BACKENDS)('concurrent edits on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h.close());

  it('50 parallel PATCHes of one pipeline apply one after the other: version counts each one', async () => {
    const created = await h.request('POST', '/v0/pipelines', pipelineBody('conc'));
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.request('PATCH', '/v0/pipelines/conc', {
          program_code: `CREATE TABLE t${i} (x INT);`,
          description: `edit ${i}`,
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
    const final = (await h.request('GET', '/v0/pipelines/conc')).body;
    expect(final.version).toBe(created.body.version + 50);
    expect(final.program_version).toBe(created.body.program_version + 50);
    expect(final.refresh_version).toBe(created.body.refresh_version + 50);
    // Each reply saw a distinct version: no two edits read the same state.
    expect(new Set(replies.map((r) => r.body.version)).size).toBe(50);
    // The stored record is the one the last writer produced, whole.
    const last = replies.find((r) => r.body.version === final.version)?.body;
    expect(final.program_code).toBe(last.program_code);
    expect(final.description).toBe(last.description);
    expect(final.description).toBe(`edit ${final.program_code.match(/t(\d+)/)[1]}`);
  });

  it('parallel creates of one name: exactly one wins, the rest get 409', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => h.request('POST', '/v0/pipelines', pipelineBody('conc-race'))),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409 && r.body.error_code === 'DuplicateName')).toHaveLength(19);
  });
});
