import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// Numbers a double cannot hold (a bigint past 2^53, a numeric of 30 digits, a float's 17th digit)
// go in, through the views, out of the egress stream and the ad-hoc query (through a checkpoint:
// src/engine/state.test.ts), digit for digit: JSON.parse alone used to round them on every way.

const PROGRAM = `CREATE TABLE t (id bigint NOT NULL, n numeric, f double precision) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW v AS SELECT id, n, f, id - 1 AS before FROM t;`;

const ROWS =
  '{"insert":{"id":9223372036854775807,"n":123456789012345678901234567890.123456789,"f":0.30000000000000004}}\n' +
  '{"insert":{"id":9007199254740993,"n":-0.000000000000000000000000000001,"f":-0}}\n';

let p: PipelineApp;
beforeAll(async () => {
  p = await startPipelineApp(PROGRAM);
}, 60_000);
afterAll(() => p?.close());

const query = async (sql: string, format = 'json') =>
  fetch(`${p.base}/query?sql=${encodeURIComponent(sql)}&format=${format}`);

async function complete(token: string): Promise<void> {
  for (;;) {
    const r = await fetch(`${p.base}/completion_status?token=${encodeURIComponent(token)}`);
    if (r.status === 200) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('numbers a double cannot hold', { timeout: 60_000 }, () => {
  it('keep every digit: ingress, views, egress, query (json, text, arrow)', async () => {
    const egress = await fetch(`${p.base}/egress/v?format=json`, { method: 'POST' });
    const reader = egress.body!.getReader();
    await reader.read();
    const r = await fetch(`${p.base}/ingress/t?format=json&update_format=insert_delete`, {
      method: 'POST',
      body: ROWS,
    });
    expect(r.status).toBe(200);
    await complete(((await r.json()) as { token: string }).token);

    let text = '';
    while (!text.includes('json_data')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const line = text.split('\n').find((l) => l.includes('json_data')) ?? '';
    expect(line).toContain(
      '{"insert":{"id":9223372036854775807,"n":123456789012345678901234567890.123456789,"f":0.30000000000000004,"before":9223372036854775806}}',
    );
    // The same number, spelt as a double writes it: values are kept, not their spelling (5.10 → 5.1).
    expect(line).toContain('"id":9007199254740993,"n":-1e-30,"f":-0,"before":9007199254740992');

    const sql = 'SELECT id, n, f FROM v ORDER BY id';
    expect(await (await query(sql)).text()).toBe(
      '{"id":9007199254740993,"n":-1e-30,"f":-0}\n' +
        '{"id":9223372036854775807,"n":123456789012345678901234567890.123456789,"f":0.30000000000000004}\n',
    );
    expect(await (await query(sql, 'text')).text()).toContain('9223372036854775807');
    const arrow = tableFromIPC(
      new Uint8Array(await (await query('SELECT id FROM t ORDER BY id', 'arrow_ipc')).arrayBuffer()),
    );
    expect(arrow.getChild('id')?.toArray()).toEqual(new BigInt64Array([9007199254740993n, 9223372036854775807n]));
    // PostgreSQL itself holds the digits (not only our JSON on the way out).
    const held =
      "SELECT id::text = '9223372036854775807' AND n::text = '123456789012345678901234567890.123456789' AS ok FROM t WHERE n > 1";
    expect(await (await query(held)).text()).toBe('{"ok":true}\n');
    const tiny = "SELECT n = -0.000000000000000000000000000001 AND f::text = '-0' AS ok FROM t WHERE n < 0";
    expect(await (await query(tiny)).text()).toBe('{"ok":true}\n');
  });

  it('a number too large for its column is a parse error naming it, never rounded to fit', async () => {
    const body =
      '{"insert":{"id":1,"f":1e400}}\n{"insert":{"id":92233720368547758070}}\n{"insert":{"id":5,"f":1e308}}\n';
    const r = await fetch(`${p.base}/ingress/t?format=json&update_format=insert_delete`, { method: 'POST', body });
    expect(r.status).toBe(400);
    const err = (await r.json()) as {
      error_code: string;
      details: { errors: { event_number: number; description: string }[]; token: string };
    };
    expect(err.error_code).toBe('ParseErrors');
    expect(err.details.errors.map((e) => e.event_number)).toEqual([0, 1]);
    expect(err.details.errors[0]?.description).toContain('1e400');
    expect(err.details.errors[1]?.description).toContain('92233720368547758070');
    await complete(err.details.token);
    expect(await (await query('SELECT id, f FROM t WHERE id = 5')).text()).toBe('{"id":5,"f":1e+308}\n');
  });
});
