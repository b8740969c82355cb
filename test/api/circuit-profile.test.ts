import { afterAll, describe, expect, it } from 'vitest';
import type { OperatorProfile, ViewProfile } from '../../src/engine/operators/profile.js';
import { type PipelineApp, startPipelineApp } from '../support/pipeline-controller.js';

// GET /circuit_profile of a real pipeline (its engine on its thread, the shards on theirs): each
// native view's operators with what they hold, summed over the shards, and their steps when timed.

const PROGRAM = `CREATE TABLE orders (id int NOT NULL, customer int NOT NULL, amount int NOT NULL);
CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL);
CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
CREATE VIEW regions AS SELECT o.id, c.region FROM orders o JOIN customers c ON c.id = o.customer;
CREATE VIEW amounts AS SELECT DISTINCT amount FROM orders;
CREATE VIEW ranked AS SELECT id, rank() OVER (ORDER BY amount) AS r FROM orders;`;

const ORDERS = Array.from({ length: 30 }, (_, id) => ({ id, customer: id % 5, amount: id % 4 }));
const CUSTOMERS = Array.from({ length: 5 }, (_, id) => ({ id, region: id % 2 === 0 ? 'east' : 'west' }));

interface Body {
  timed: boolean;
  views: ViewProfile[];
}

const opened: PipelineApp[] = [];
afterAll(() => Promise.all(opened.map((p) => p.close())));

async function profiled(runtime_config: Record<string, number | boolean>, cores?: number): Promise<Body> {
  const p = await startPipelineApp(PROGRAM, runtime_config, cores);
  opened.push(p);
  for (const [table, rows] of [
    ['customers', CUSTOMERS],
    ['orders', ORDERS],
  ] as const) {
    const r = await fetch(`${p.base}/ingress/${table}?format=json&update_format=raw&array=true`, {
      method: 'POST',
      body: JSON.stringify(rows),
    });
    expect(r.status).toBe(200);
  }
  // Both ingresses stepped: the view's rows are there.
  await expect
    .poll(
      async () =>
        (await (await fetch(`${p.base}/query?format=json&sql=SELECT+count(*)+AS+n+FROM+per_customer`)).json()) as {
          n: number;
        },
      { timeout: 20_000 },
    )
    .toEqual({ n: 5 });
  const r = await fetch(`${p.base}/circuit_profile`);
  expect(r.status).toBe(200);
  return (await r.json()) as Body;
}

const view = (body: Body, name: string): ViewProfile => body.views.find((v) => v.view === name)!;
const op = (v: ViewProfile, operator: string): OperatorProfile => v.operators!.find((o) => o.operator === operator)!;

describe('GET /circuit_profile', { timeout: 120_000 }, () => {
  it.each([
    { workers: 1, cores: undefined, shards: 1 },
    { workers: 3, cores: 4, shards: 3 },
  ])('workers $workers: each operator, what it holds (all shards), its steps', async ({ workers, cores, shards }) => {
    const body = await profiled({ workers }, cores);
    expect(body.timed).toBe(true);

    const grouped = view(body, 'per_customer');
    expect(grouped).toMatchObject({ maintenance: 'native', reason: null, shards, held_rows: 5 });
    expect(grouped.operators![0]).toMatchObject({ operator: 'Consolidate', depth: 0, held: null });
    expect(op(grouped, 'Aggregate').held).toBe(5); // groups
    // The root's rows: 5 groups, each inserted once (and never changed: one ingress of orders).
    expect(grouped.operators![0]!.rows_out).toBe(5);
    for (const o of grouped.operators!) {
      expect(o.steps).toBeGreaterThan(0);
      expect(o.self_ms).toBeGreaterThanOrEqual(0);
    }

    // The join's traces: 30 orders and 5 customers (the columns it needs of each).
    expect(op(view(body, 'regions'), 'Join').held).toBe(35);
    expect(op(view(body, 'amounts'), 'Distinct').held).toBe(4);
    expect(view(body, 'ranked')).toMatchObject({ shards: null, operators: null, held_rows: null });
    expect(view(body, 'ranked').maintenance).not.toBe('native');
    expect(view(body, 'ranked').reason).toMatch(/not native/);
  });

  it('cpu_profiler false: what the operators hold, no times', async () => {
    const body = await profiled({ cpu_profiler: false });
    expect(body.timed).toBe(false);
    const grouped = view(body, 'per_customer');
    expect(op(grouped, 'Aggregate')).toMatchObject({ held: 5, steps: null, self_ms: null, rows_out: null });
  });
});
