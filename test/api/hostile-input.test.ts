import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPTH, MAX_WEIGHT } from '../../src/engine/limits.js';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// Input an attacker or a careless client sends to the pipeline's data path (issue 27), through its
// HTTP app with the real engine: each bad record is a 400 for that record alone, the good records of
// the same request go in, the pipeline keeps answering; egress on a table streams its changes.

const PROGRAM = `CREATE TABLE t (id bigint NOT NULL, j json) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t;
CREATE TABLE e (id int, s text);`;

let p: PipelineApp;
beforeAll(async () => {
  p = await startPipelineApp(PROGRAM);
}, 60_000);
afterAll(() => p?.close());

const ingest = (query: string, body: string) =>
  fetch(`${p.base}/ingress/t?format=json&${query}`, { method: 'POST', body });
const count = async () => {
  const res = await fetch(`${p.base}/query?format=json&sql=${encodeURIComponent('SELECT c FROM n')}`);
  return ((JSON.parse((await res.text()).trim() || '{}') as { c?: number }).c ?? 0) as number;
};
type ParseErrors = {
  error_code: string;
  details: { num_errors: number; errors: Array<{ event_number: number; description: string }> };
};

describe('hostile input to the pipeline', { timeout: 120_000 }, () => {
  it('a weight past the bound is refused for that record; the others go in and the pipeline answers', async () => {
    const before = await count();
    const body = [
      { weight: Number.MAX_SAFE_INTEGER, data: { id: 1 } },
      { weight: 2, data: { id: 2 } },
      { weight: -(MAX_WEIGHT + 1), data: { id: 3 } },
      { weight: MAX_WEIGHT, data: { id: 4 } },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const res = await ingest('update_format=weighted', body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as ParseErrors;
    expect(err.error_code).toBe('ParseErrors');
    expect(err.details.errors.map((e) => e.event_number)).toEqual([0, 2]);
    expect(err.details.errors[0]?.description).toMatch(/"weight" must be between/);
    await expect.poll(count, { timeout: 60_000 }).toBe(before + 2 + MAX_WEIGHT);
    expect((await fetch(`${p.base}/stats`)).status).toBe(200);
  });

  it('a value nested 100,000 deep is a 400 for that record alone, not a 500 that drops the others', async () => {
    const before = await count();
    const deep = `{"insert":{"id":5,"j":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const atBound = `{"insert":{"id":6,"j":${'['.repeat(MAX_DEPTH - 2)}${']'.repeat(MAX_DEPTH - 2)}}}`;
    const body = ['{"insert":{"id":7,"j":{"a":[1]}}}', deep, atBound].join('\n');
    const res = await ingest('update_format=insert_delete', body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as ParseErrors;
    expect(err.details.errors.map((e) => e.event_number)).toEqual([1]);
    expect(err.details.errors[0]?.description).toMatch(/more than 64 levels/);
    await expect.poll(count, { timeout: 30_000 }).toBe(before + 2);
    // The same as one JSON array.
    const array = await ingest('update_format=raw&array=true', `[{"id":8},${deep.slice(10, -1)}]`);
    expect(array.status).toBe(400);
    expect(((await array.json()) as ParseErrors).details.errors.map((e) => e.event_number)).toEqual([1]);
    await expect.poll(count, { timeout: 30_000 }).toBe(before + 3);
  });

  it('egress on a table streams the changes ingested into it', async () => {
    const res = await fetch(`${p.base}/egress/e?format=json`, { method: 'POST' });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const into = (body: string) => fetch(`${p.base}/ingress/e?format=json`, { method: 'POST', body });
    expect((await into('{"insert":{"id":5,"s":"a"}}')).status).toBe(200);
    while (!text.includes('"id":5')) text += decoder.decode((await reader.read()).value);
    expect((await into('{"insert":{"id":900}}\n{"delete":{"id":5,"s":"a"}}')).status).toBe(200);
    while (!text.includes('"id":900')) text += decoder.decode((await reader.read()).value);
    await reader.cancel();
    const chunk = text.split('\n').find((l) => l.includes('"id":900')) ?? '';
    expect(JSON.parse(chunk)).toMatchObject({
      json_data: expect.arrayContaining([{ insert: { id: 900, s: null } }, { delete: { id: 5, s: 'a' } }]),
    });
  });
});
