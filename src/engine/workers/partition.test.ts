import { loadModule } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../operators/operator.js';
import { planView } from '../planner/plan.js';
import { type Row, ZSet } from '../zset/zset.js';
import type { Shards } from './exchange.js';
import { partitionRoutes, splitDelta } from './partition.js';

// How a relation's delta is split over the shards (partition.ts): by the route of an exchange that
// takes the relation's rows as they are, so that exchange (and any of the same key) has nothing to
// send; contiguous slices otherwise.

const TABLES = new Map([
  [
    'orders',
    [
      { name: 'id', type: 'bigint' },
      { name: 'customer', type: 'integer' },
      { name: 'amount', type: 'integer' },
    ],
  ],
  [
    'customers',
    [
      { name: 'id', type: 'integer' },
      { name: 'region', type: 'text' },
    ],
  ],
]);
/** Three shards as the planner sees them (planning never exchanges anything). */
const shards: Shards = {
  index: 0,
  count: 3,
  exchange: () => {
    throw new Error('not stepped here');
  },
};
const catalog = { columnsOf: (r: string) => TABLES.get(r), shards };
const plan = (def: string, types: string[]): Operator => {
  const p = planView(
    def,
    types.map((type) => ({ type })),
    catalog,
  );
  if (!p.native) throw new Error(p.reason);
  return p.root;
};

const orders = new ZSet(
  Array.from({ length: 300 }, (_, i): Row => [BigInt(i), i % 17 === 0 ? null : (i % 40) + 1, i]),
  Array.from({ length: 300 }, (_, i) => (i % 5 === 0 ? -1 : 1)),
);

describe('partition routes', () => {
  beforeAll(() => loadModule());

  it('split a relation as the exchange that takes its rows as they are would place them, through filters', () => {
    const join = plan(
      'SELECT o.id, c.region, o.amount FROM orders o JOIN customers c ON c.id = o.customer WHERE o.amount > 10',
      ['bigint', 'text', 'integer'],
    );
    const routes = partitionRoutes(join);
    expect([...routes.keys()].sort()).toEqual(['customers', 'orders']);
    const route = routes.get('orders')!;
    const parts = splitDelta(orders, 3, route);
    // Every row where the exchange would send it (a NULL key, which it keeps where it is, on the first).
    parts.forEach((part, k) => {
      for (const row of part.rows) {
        const h = route(row);
        expect(h === null ? 0 : (h >>> 0) % 3).toBe(k);
      }
    });
    expect(parts.every((p) => p.rows.length > 0)).toBe(true);
    // The same rows and weights, nothing lost or doubled.
    const back = new ZSet();
    for (const p of parts) for (let i = 0; i < p.rows.length; i++) back.add(p.rows[i]!, p.weights[i]!);
    expect(back.consolidate().size).toBe(orders.consolidate().size);
    expect(back.count()).toBe(orders.count());

    // GROUP BY the same column routes the same way: a row split for the join is where the aggregate
    // wants it too. But for a NULL key, which the join keeps where it is and the aggregate groups.
    const perCustomer = partitionRoutes(
      plan('SELECT customer, count(*) AS n FROM orders GROUP BY customer', ['integer', 'bigint']),
    ).get('orders')!;
    for (const row of orders.rows)
      if (row[1] === null) expect([route(row), typeof perCustomer(row)]).toEqual([null, 'number']);
      else expect(perCustomer(row)).toBe(route(row));
  });

  it('leave a relation contiguous where no exchange takes its rows as they are', () => {
    // The aggregate's exchange takes the joined rows, the filter view has none.
    const afterJoin = partitionRoutes(
      plan('SELECT c.region, count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.region', [
        'text',
        'bigint',
      ]),
    );
    expect([...afterJoin.keys()].sort()).toEqual(['customers', 'orders']);
    expect(partitionRoutes(plan('SELECT id, amount FROM orders WHERE amount > 900', ['bigint', 'integer'])).size).toBe(
      0,
    );
    const parts = splitDelta(orders, 3, undefined);
    expect(parts.map((p) => p.rows.length)).toEqual([100, 100, 100]);
    expect(parts[1]!.rows[0]).toBe(orders.rows[100]);
  });

  it('keep the first route met for a relation, whichever view comes later', () => {
    const into = partitionRoutes(
      plan('SELECT customer, count(*) AS n FROM orders GROUP BY customer', ['integer', 'bigint']),
    );
    const first = into.get('orders');
    partitionRoutes(plan('SELECT amount, count(*) AS n FROM orders GROUP BY amount', ['integer', 'bigint']), into);
    expect(into.get('orders')).toBe(first);
  });
});
