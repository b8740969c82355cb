import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// Wire compatibility, second round (issue 30), over real HTTP against a real pipeline (engine in
// PGlite): the shapes the established ecosystem's clients send and read, written from its public
// documentation and its Python SDK's observed behaviour. test/cli/python-sdk.test.ts drives the same
// through the pinned SDK itself.

const PROGRAM = `CREATE TABLE t (id int NOT NULL, s text, ts timestamp, d date, tz timestamptz) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW v AS SELECT id, s FROM t;`;

let p: PipelineApp;
beforeAll(async () => {
  p = await startPipelineApp(PROGRAM);
}, 60_000);
afterAll(() => p?.close());

const post = (path: string, body: string, type = 'application/json') =>
  fetch(`${p.base}${path}`, { method: 'POST', body, headers: { 'content-type': type } });

async function complete(token: string): Promise<void> {
  for (;;) {
    const r = await fetch(`${p.base}/completion_status?token=${encodeURIComponent(token)}`);
    if (r.status === 200) return;
    expect(r.status).toBe(202);
    await new Promise((res) => setTimeout(res, 20));
  }
}

async function ingest(query: string, body: string): Promise<void> {
  const r = await post(`/ingress/t?${query}`, body);
  expect(r.status, await r.clone().text()).toBe(200);
  await complete(((await r.json()) as { token: string }).token);
}

const rows = async (sql: string) =>
  (await (await fetch(`${p.base}/query?format=json&sql=${encodeURIComponent(sql)}`)).text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('wire compatibility: the data path', { timeout: 60_000 }, () => {
  it('every egress line is a chunk with a sequence_number, progress-only chunks included', async () => {
    const egress = await fetch(`${p.base}/egress/v?format=json`, { method: 'POST' });
    const reader = egress.body!.getReader();
    let text = '';
    const first = new TextDecoder().decode((await reader.read()).value);
    text += first;
    await ingest('format=json&update_format=insert_delete', '{"insert":{"id":100,"s":"e"}}');
    while (!text.includes('json_data')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const chunks = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const c of chunks) expect(c['sequence_number'], JSON.stringify(c)).toEqual(expect.any(Number));
    // Strictly increasing: a typed client keys its chunks by it.
    const seqs = chunks.map((c) => c['sequence_number'] as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(JSON.parse(first)).toMatchObject({ sequence_number: 0, processed_steps: expect.any(Number) });
    expect(chunks.find((c) => c['json_data'])).toMatchObject({ json_data: [{ insert: { id: 100, s: 'e' } }] });
    await ingest('format=json&update_format=insert_delete', '{"delete":{"id":100,"s":"e"}}');
  });

  it('takes rows given as arrays, by column position, in every update format', async () => {
    await ingest('format=json&update_format=insert_delete', '{"insert":[1,"a"]}\n{"insert":[2,"b",null]}');
    await ingest('format=json&update_format=raw&array=true', '[[3,"c"],{"id":4,"s":"d"}]');
    await ingest('format=json&update_format=weighted', '{"weight":1,"data":[5,"e"]}');
    await ingest('format=json&update_format=insert_delete', '{"delete":[2,"b"]}');
    expect(await rows('SELECT id, s FROM t WHERE id < 10 ORDER BY id')).toEqual([
      { id: 1, s: 'a' },
      { id: 3, s: 'c' },
      { id: 4, s: 'd' },
      { id: 5, s: 'e' },
    ]);
    const tooLong = await post('/ingress/t?format=json', '{"insert":[1,"a",null,null,null,"extra"]}');
    expect(tooLong.status).toBe(400);
    const tooLongMessage = ((await tooLong.json()) as { message: string }).message;
    expect(tooLongMessage).toContain('has 6 values but the table has 5');
    // Opened with the established server's words, which its clients look for.
    expect(tooLongMessage).toMatch(/^Errors parsing input data \(1 errors\): /);
  });

  it('json_flavor=pandas reads epoch milliseconds into timestamp and date columns', async () => {
    // 2024-03-01T12:34:56.789Z
    const ms = Date.UTC(2024, 2, 1, 12, 34, 56, 789);
    await ingest(
      'format=json&update_format=raw&array=true&json_flavor=pandas',
      JSON.stringify([{ id: 20, s: 'p', ts: ms, d: Date.UTC(2024, 2, 1), tz: ms }]),
    );
    expect(
      await rows("SELECT ts::text AS ts, d::text AS d, (tz AT TIME ZONE 'UTC')::text AS tz FROM t WHERE id = 20"),
    ).toEqual([{ ts: '2024-03-01 12:34:56.789', d: '2024-03-01', tz: '2024-03-01 12:34:56.789' }]);
    // Without the flavor, a number is not a timestamp: the record is refused, naming its column.
    const plain = await post('/ingress/t?format=json&update_format=raw', JSON.stringify({ id: 21, ts: ms }));
    expect(plain.status).toBe(400);
    const unknown = await post('/ingress/t?format=json&json_flavor=snowflake', '{}');
    expect(unknown.status).toBe(400);
    const refused = (await unknown.json()) as { message: string; details: { field: string } };
    expect(refused.details.field).toBe('json_flavor');
    expect(refused.message).toContain("json_flavor: 'snowflake' is not a flavor svc reads");
  });

  it('reads debezium change events: an update is a delete and an insert', async () => {
    await ingest(
      'format=json&update_format=debezium',
      '{"payload":{"before":null,"after":{"id":30,"s":"x"},"op":"c"}}',
    );
    await ingest(
      'format=json&update_format=debezium',
      '{"payload":{"before":{"id":30,"s":"x"},"after":{"id":30,"s":"y"},"op":"u"}}',
    );
    expect(await rows('SELECT id, s FROM t WHERE id = 30')).toEqual([{ id: 30, s: 'y' }]);
  });
});

describe('wire compatibility: stats, metrics and checkpoints', { timeout: 60_000 }, () => {
  it('/stats carries the members the clients read, checkpoint and suspend state among them', async () => {
    const stats = (await (await fetch(`${p.base}/stats`)).json()) as Record<string, Record<string, unknown>>;
    expect(stats['global_metrics']).toMatchObject({
      bootstrap_in_progress: false,
      total_input_records: expect.any(Number),
      total_input_bytes: expect.any(Number),
      total_processed_records: expect.any(Number),
      cpu_msecs: expect.any(Number),
      initial_start_time: expect.any(Number),
      transaction_id: 0,
    });
    expect(stats['global_metrics']?.['total_input_records']).toBe(stats['global_metrics']?.['total_processed_records']);
    expect(stats).toMatchObject({ suspend_error: null, checkpoint_activity: { status: 'idle' } });
    expect(stats['checkpoint_status']).toMatchObject({ success: null, failure: null });
  });

  it('/metrics: text/plain with the established names, and the same as JSON with ?format=json', async () => {
    const r = await fetch(`${p.base}/metrics`);
    expect(r.headers.get('content-type')).toBe('text/plain');
    const text = await r.text();
    expect(text).toMatch(/^records_processed_total\{pipeline="[0-9a-f-]+",pipeline_name="[^"]+"\} \d+$/m);
    expect(text).toMatch(/^input_connector_records_total\{.*endpoint="[^"]+"\} \d+$/m);
    const json = await fetch(`${p.base}/metrics?format=json`);
    expect(json.headers.get('content-type')).toContain('application/json');
    const metrics = (await json.json()) as { name: string; values: { value: number }[] }[];
    const processed = metrics.find((m) => m.name === 'records_processed_total');
    expect(processed?.values[0]?.value).toBeGreaterThan(0);
    expect((await fetch(`${p.base}/metrics?format=xml`)).status).toBe(400);
  });

  it('GET /checkpoints lists what POST /checkpoint wrote', async () => {
    const before = (await (await fetch(`${p.base}/checkpoints`)).json()) as unknown[];
    const made = (await (await fetch(`${p.base}/checkpoint`, { method: 'POST' })).json()) as { checkpoint_id: string };
    const after = (await (await fetch(`${p.base}/checkpoints`)).json()) as { uuid: string }[];
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ uuid: made.checkpoint_id, processed_records: expect.any(Number) });
    const stats = (await (await fetch(`${p.base}/stats`)).json()) as { checkpoint_status: { success: number } };
    expect(stats.checkpoint_status.success).toEqual(expect.any(Number));
  });

  it('step time and storage: /stats and /metrics report the same, and they grow with steps and checkpoints', async () => {
    type G = {
      total_completed_steps: number;
      total_step_msecs: number;
      last_step_msecs: number;
      storage_bytes: number;
    };
    const global = async () =>
      ((await (await fetch(`${p.base}/stats`)).json()) as { global_metrics: G }).global_metrics;
    const metric = async (name: string) => {
      const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${p.base}/metrics`)).text());
      return Number(m?.[1]);
    };
    const before = await global();
    await ingest('format=json&update_format=raw', '{"id":40,"s":"t"}');
    await fetch(`${p.base}/checkpoint`, { method: 'POST' });
    const after = await global();
    expect(after.total_completed_steps).toBeGreaterThan(before.total_completed_steps);
    expect(after.total_step_msecs).toBeGreaterThan(before.total_step_msecs);
    expect(after.last_step_msecs).toBeGreaterThan(0);
    expect(after.last_step_msecs).toBeLessThanOrEqual(after.total_step_msecs);
    // A checkpoint was written (the test above and this one): storage holds bytes.
    expect(after.storage_bytes).toBeGreaterThan(0);
    expect(await metric('svc_pipeline_storage_bytes')).toBe(after.storage_bytes);
    expect(await metric('svc_pipeline_step_seconds_total')).toBe(after.total_step_msecs / 1000);
    expect(await metric('svc_pipeline_last_step_seconds')).toBe(after.last_step_msecs / 1000);
  });
});

describe('wire compatibility: a program in the established dialect runs', { timeout: 60_000 }, () => {
  it('VARIANT, MAP, DOUBLE, LATENESS: compiled, loaded, fed and queried', async () => {
    const dialect =
      await startPipelineApp(`CREATE TABLE e (id INT NOT NULL PRIMARY KEY, v VARIANT, m MAP<VARCHAR, INT>, x DOUBLE,
  ts TIMESTAMP NOT NULL LATENESS INTERVAL '1' HOUR) WITH ('materialized' = 'true', 'append_only' = 'true');
LATENESS e.ts INTERVAL '1' HOUR;
CREATE LOCAL VIEW w AS SELECT id, v, m, x * 2 AS x2 FROM e;
CREATE MATERIALIZED VIEW mv AS SELECT id, x2 FROM w;`);
    try {
      const r = await fetch(`${dialect.base}/ingress/e?format=json&update_format=raw`, {
        method: 'POST',
        body: '{"id":1,"v":{"a":[1,2]},"m":{"k":3},"x":1.5,"ts":"2024-01-01 00:00:00"}',
      });
      expect(r.status, await r.clone().text()).toBe(200);
      const { token } = (await r.json()) as { token: string };
      while ((await fetch(`${dialect.base}/completion_status?token=${encodeURIComponent(token)}`)).status !== 200)
        await new Promise((res) => setTimeout(res, 20));
      const q = await fetch(`${dialect.base}/query?format=json&sql=${encodeURIComponent('SELECT id, x2 FROM mv')}`);
      expect(await q.text()).toBe('{"id":1,"x2":3}\n');
      const e = await fetch(`${dialect.base}/query?format=json&sql=${encodeURIComponent("SELECT v->'a' AS a FROM e")}`);
      expect(await e.text()).toBe('{"a":[1,2]}\n');
    } finally {
      await dialect.close();
    }
  });
});
