import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowChanges } from '../../src/lifecycle/changes.js';
import type { Queryable } from '../../src/store/database.js';
import { writeBatcher } from '../../src/runner/write-batch.js';
import { applyAllIfUnchanged, batchStatement } from '../../src/store/runner/batch.js';
import { selectPipelineById } from '../../src/store/runner/queries.js';
import type { VersionedRunnerRow } from '../../src/model/pipeline-row.js';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// The runner's writes that wait for the database go as one statement (store/runner/batch.ts,
// runner/write-batch.ts): each stays conditional on its own row's version, on PostgreSQL and PGlite.

const describeAs = (text: string): RowChanges => ({
  set: { description: text, deployment_error: { error_code: 'X', message: text, details: { n: 1 } } },
  stamp: ['deployment_resources_status_since'],
  bump: ['refresh_version'],
});

describe.each(BACKENDS)('batched runner writes on %s', (backend) => {
  let h: Harness;
  const ids: string[] = [];
  beforeAll(async () => {
    h = await startHarness(backend);
    for (const name of 'abcdefghij'.split('').map((c) => `batch-${c}`))
      ids.push((await h.request('POST', '/v0/pipelines', pipelineBody(name))).body.id);
  });
  afterAll(async () => h.close());

  const read = async (id: string) => (await selectPipelineById(h.db, id)) as VersionedRunnerRow;

  it('numbers each write’s parameters apart', () => {
    const row = { id: 'p', row_version: '7' } as VersionedRunnerRow;
    const { sql, params } = batchStatement([
      { row, changes: describeAs('one') },
      { row: { ...row, id: 'q' }, changes: describeAs('two') },
    ]);
    expect(params).toHaveLength(8);
    expect(sql).toContain('WHERE id = $5 AND xmin::text = $8');
    expect(sql).toMatch(/^WITH w0 AS \(UPDATE pipeline SET .* SELECT \* FROM w0 UNION ALL SELECT \* FROM w1$/);
  });

  it('writes the current rows and leaves out the one changed meanwhile', async () => {
    const [a, b, c] = await Promise.all(ids.slice(0, 3).map(read));
    // b changes behind the runner's back: its write must not land.
    await h.db.query("UPDATE pipeline SET description = 'someone else' WHERE id = $1", [b!.id]);
    const written = await applyAllIfUnchanged(h.db, [
      { row: a!, changes: describeAs('batched a') },
      { row: b!, changes: describeAs('batched b') },
      { row: c!, changes: describeAs('batched c') },
    ]);
    expect([...written.keys()].sort()).toEqual([a!.id, c!.id].sort());
    expect(written.get(a!.id)?.deployment_error).toEqual({ error_code: 'X', message: 'batched a', details: { n: 1 } });
    expect(written.get(a!.id)?.row_version).not.toBe(a!.row_version);
    expect(await read(a!.id)).toEqual(written.get(a!.id));
    expect((await read(b!.id)).deployment_error).toBeNull();
  });

  it('the batcher sends writes at once up to eight in flight, and the ones that wait as one statement', async () => {
    const rows = await Promise.all(ids.map(read));
    const statements: string[] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        statements.push(sql);
        return h.db.query(sql, params);
      },
      exec: (sql) => h.db.exec(sql),
    };
    const sizes: number[] = [];
    const write = writeBatcher(counted, (n) => sizes.push(n));
    const results = await Promise.all(rows.map((r, i) => write(r, describeAs(`write ${i}`))));
    results.forEach((r, i) => expect(r?.deployment_error?.message).toBe(`write ${i}`));
    // Ten writes: eight go at once, the two that came meanwhile go together when one is done.
    expect(sizes).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 2]);
    expect(statements.filter((sql) => sql.startsWith('WITH w0 AS'))).toHaveLength(1);
    // A stale row among them: undefined for it alone.
    const [again, fresh] = await Promise.all([
      write(rows[0]!, describeAs('stale')),
      write(results[1]!, describeAs('fresh')),
    ]);
    expect(again).toBeUndefined();
    expect(fresh?.deployment_error?.message).toBe('fresh');
  });
});
