import { randomUUID } from 'node:crypto';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// The pipeline process's data routes over real HTTP, with the real engine (PGlite) behind them:
// ingress in each format, completion tokens, the egress stream, ad-hoc queries and /stats.

const PROGRAM = `CREATE TABLE t (id int NOT NULL, s text) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW big AS SELECT id, s FROM t WHERE id > 1;
CREATE VIEW small AS SELECT id FROM t WHERE id < 2;`;

let p: PipelineApp;
let base: string;
beforeAll(async () => {
  p = await startPipelineApp(PROGRAM);
  base = p.base;
}, 60_000);
afterAll(() => p?.close());

async function complete(token: string): Promise<number> {
  for (;;) {
    const r = await fetch(`${base}/completion_status?token=${encodeURIComponent(token)}`);
    const body = (await r.json()) as { status: string; step?: number };
    if (r.status === 200 && body.status === 'complete') return body.step ?? -1;
    expect(r.status).toBe(202);
    await new Promise((res) => setTimeout(res, 20));
  }
}

const post = (path: string, body: string) =>
  fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('pipeline data routes', { timeout: 60_000 }, () => {
  it('ingress → egress stream → completion → query → stats; parse errors listed, good records kept', async () => {
    const egress = await fetch(`${base}/egress/BIG?format=json`, { method: 'POST' });
    expect(egress.status).toBe(200);
    const reader = egress.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first)).toHaveProperty('processed_steps');

    const r1 = await post(
      '/ingress/T?format=json&update_format=insert_delete',
      '{"insert":{"id":1,"s":"a"}}\n{"insert":{"id":2,"s":"b"}}\n',
    );
    expect(r1.status).toBe(200);
    const { token } = (await r1.json()) as { token: string };
    await complete(token);

    let text = '';
    while (!text.includes('json_data')) text += new TextDecoder().decode((await reader.read()).value);
    const chunk = JSON.parse(text.split('\n').find((l) => l.includes('json_data'))!);
    expect(chunk.json_data).toEqual([{ insert: { id: 2, s: 'b' } }]);
    expect(chunk.snapshot).toBe(false);
    await reader.cancel();

    const bad = await fetch(`${base}/ingress/t?format=csv`, {
      method: 'POST',
      body: '3,"c"\nx,y\n4\n5,\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(bad.status).toBe(400);
    const err = (await bad.json()) as {
      message: string;
      error_code: string;
      details: { num_errors: number; errors: { event_number: number }[]; token: string };
    };
    expect(err.error_code).toBe('ParseErrors');
    expect(err.message).toMatch(
      /^Errors parsing input data \(2 errors\): 2 of 4 records could not be ingested \(the other 2 were\): record 1: /,
    );
    expect(err.details.errors.map((e) => e.event_number)).toEqual([1, 2]);
    await complete(err.details.token);

    const q = await fetch(`${base}/query?sql=${encodeURIComponent('SELECT id, s FROM big ORDER BY id')}&format=json`);
    expect(await q.text()).toBe('{"id":2,"s":"b"}\n{"id":3,"s":"c"}\n{"id":5,"s":null}\n');
    const table = await (await fetch(`${base}/query?sql=${encodeURIComponent('SELECT count(*) AS n FROM t')}`)).text();
    expect(table).toContain('| 4 ');

    const stats = (await (await fetch(`${base}/stats`)).json()) as {
      global_metrics: { incarnation_uuid: string; total_processed_records: number };
      inputs: { metrics: { num_parse_errors: number; total_records: number } }[];
    };
    expect(stats.global_metrics.total_processed_records).toBe(4);
    expect(stats.inputs[0]?.metrics).toMatchObject({ num_parse_errors: 2, total_records: 4 });
  });

  it('query answers arrow_ipc and parquet, typed, from the engine', async () => {
    const sql = `SELECT id, s, id::bigint * 1000000000000 AS big, id / 4.0 AS q, DATE '2024-02-29' AS day,
      TIMESTAMP '2024-01-02 03:04:05.678901' AS ts FROM big ORDER BY id`;
    const get = async (format: string) => {
      const r = await fetch(`${base}/query?format=${format}&sql=${encodeURIComponent(sql)}`);
      expect(r.status).toBe(200);
      return { type: r.headers.get('content-type'), bytes: new Uint8Array(await r.arrayBuffer()) };
    };
    const arrow = await get('arrow_ipc');
    expect(arrow.type).toBe('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(arrow.bytes);
    expect(table.schema.fields.map((f) => String(f.type))).toEqual([
      'Int32',
      'Utf8',
      'Int64',
      'Utf8',
      'Date32<DAY>',
      'Timestamp<MICROSECOND>',
    ]);
    const ids = table.getChild('id')!.toArray() as Int32Array;
    expect(ids.length).toBeGreaterThan(0);
    expect(table.getChild('big')!.get(0)).toBe(BigInt(ids[0]!) * 1_000_000_000_000n);
    expect(table.getChild('ts')!.data[0]!.values[0]).toBe(1704164645678901n);
    const parquet = await get('parquet');
    expect(parquet.type).toBe('application/vnd.apache.parquet');
    const file = parquet.bytes.buffer.slice(
      parquet.bytes.byteOffset,
      parquet.bytes.byteOffset + parquet.bytes.byteLength,
    ) as ArrayBuffer;
    const rows = await parquetReadObjects({ file, utf8: true });
    expect(rows.map((r) => r['id'])).toEqual([...ids]);
    expect(rows[0]).toMatchObject({ big: BigInt(ids[0]!) * 1_000_000_000_000n, day: new Date(Date.UTC(2024, 1, 29)) });
  });

  it('bad input is a 4xx naming the field or relation', async () => {
    const unknown = await post('/ingress/nope?format=json', '{}');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error_code: string }).error_code).toBe('UnknownInputTable');
    const fmt = await post('/ingress/t?format=xml', '');
    expect(fmt.status).toBe(400);
    expect(((await fmt.json()) as { message: string }).message).toMatch(/^format:/);
    const sql = await fetch(`${base}/query?sql=${encodeURIComponent('SELEC 1')}`);
    expect(sql.status).toBe(400);
    const format = await fetch(`${base}/query?sql=${encodeURIComponent('SELECT 1')}&format=orc`);
    expect(format.status).toBe(400);
    for (const path of ['time_series', 'heap_profile']) {
      const r = await fetch(`${base}/${path}`);
      expect(r.status).toBe(501);
      expect(await r.json()).toMatchObject({ error_code: 'NotImplemented', details: { endpoint: path } });
    }
    const token = await fetch(`${base}/completion_status?token=abc`);
    expect(token.status).toBe(400);
    const old = Buffer.from(JSON.stringify({ i: randomUUID(), s: 1 })).toString('base64url');
    expect((await fetch(`${base}/completion_status?token=${old}`)).status).toBe(410);
  });

  it('egress: snapshot first, then csv chunks with the weight; send_snapshot only for materialized views', async () => {
    const res = await fetch(`${base}/egress/big?format=csv&send_snapshot=true`, { method: 'POST' });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"snapshot":true')) text += new TextDecoder().decode((await reader.read()).value);
    const snap = JSON.parse(text.split('\n').find((l) => l.includes('"snapshot":true'))!) as { text_data: string };
    expect(snap.text_data.split('\n').filter(Boolean).sort()).toEqual(['2,b,1', '3,c,1', '5,,1']);
    const r = await post('/ingress/t?format=json', '{"delete":{"id":3,"s":"c"}}');
    await complete(((await r.json()) as { token: string }).token);
    while (!text.includes('"snapshot":false')) text += new TextDecoder().decode((await reader.read()).value);
    const change = JSON.parse(text.split('\n').find((l) => l.includes('"snapshot":false'))!) as { text_data: string };
    expect(change.text_data).toBe('3,c,-1\n');
    await reader.cancel();
    const notMat = await fetch(`${base}/egress/small?send_snapshot=true`, { method: 'POST' });
    expect(notMat.status).toBe(400);
    expect(((await notMat.json()) as { error_code: string }).error_code).toBe('NotMaterialized');
  });

  it('a paused pipeline holds ingress until resume unless force=true', async () => {
    p.ctl.setDesired('Paused');
    try {
      const forced = await post('/ingress/t?format=json&force=true', '{"insert":{"id":10,"s":"f"}}');
      expect(forced.status).toBe(200);
      let answered = false;
      const held = post('/ingress/t?format=json', '{"insert":{"id":11,"s":"h"}}').then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(answered).toBe(false);
      p.ctl.setDesired('Running');
      expect((await held).status).toBe(200);
    } finally {
      p.ctl.setDesired('Running');
    }
  });

  it('a body that starts with a byte order mark is read without it, JSON and CSV', async () => {
    const json = await post('/ingress/t?format=json', '\uFEFF{"insert":{"id":20,"s":"bom"}}');
    expect(json.status).toBe(200);
    const csv = await post('/ingress/t?format=csv', '\uFEFF21,bom\n');
    expect(csv.status).toBe(200);
    await complete(((await csv.json()) as { token: string }).token);
    const q = await fetch(
      `${base}/query?sql=${encodeURIComponent('SELECT id FROM t WHERE s = $$bom$$ ORDER BY id')}&format=json`,
    );
    expect(await q.text()).toBe('{"id":20}\n{"id":21}\n');
  });
});
