import type { Change, Row } from '../src/engine/types.js';

// bench:engine's workload, shared by the parent (ceilings, the report) and the child that runs one of
// our engines (engine-lane.ts). bench/dbsp-baseline/src/main.rs makes the same rows in Rust: a change
// here must be made there too (the check at the start of every run compares the views' contents).

export const CUSTOMERS = 1000;
export const PROGRAM = `
  CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL);
  CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL);
  CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 900;
  CREATE VIEW order_regions AS SELECT o.id, c.region, o.amount FROM orders o JOIN customers c ON c.id = o.customer;
  CREATE MATERIALIZED VIEW revenue AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;`;

const STATUSES = ['new', 'paid', 'shipped'];
export const order = (i: number) => ({
  id: i,
  customer: (i % CUSTOMERS) + 1,
  amount: ((i * 7919) % 100_000) / 100,
  status: STATUSES[i % 3]!,
});
/**
 * A batch as the wire carries it: JSON text of insert_delete records (decoded by the engine with the
 * wire formats' codec, as a pipeline's ingress has it decoded: engine-lane.ts), written
 * record by record as main.rs's batch_json writes it, byte for byte (amounts with two decimals), so
 * that every lane times the same work for its input. It was JSON.stringify of 10,000 objects built
 * first: the same records, but a fifth of the native lane's time went to making its own input.
 */
export function batchJson(from: number, n: number): string {
  const records = new Array<string>(n);
  for (let k = 0; k < n; k++) {
    const i = from + k;
    const cents = (i * 7919) % 100_000;
    const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    records[k] =
      `{"insert":{"id":${i},"customer":${(i % CUSTOMERS) + 1},"amount":${amount},"status":"${STATUSES[i % 3]}"}}`;
  }
  return `[${records.join(',')}]`;
}
export const customerChanges = (): Change[] =>
  Array.from({ length: CUSTOMERS }, (_, k) => ({ weight: 1, row: { id: k + 1, region: `r${k % 7}` } }));

export const csvRows = (records: number): string => {
  const lines: string[] = [];
  for (let i = 0; i < records; i++) {
    const o = order(i);
    lines.push(`${o.id},${o.customer},${o.amount},${o.status}`);
  }
  return `${lines.join('\n')}\n`;
};

export const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
/** One step can meet a GC pause or the engine's housekeeping round: the trend is read from medians. */
export const median = (xs: number[]) => percentile(xs, 0.5);
export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

/**
 * Each view's columns in the order the check compares them; the numeric ones are printed with the
 * scale of numeric(10,2), as the Rust program prints its cents.
 */
export const VIEW_COLUMNS: Record<string, { columns: string[]; numeric: string[] }> = {
  big_orders: { columns: ['id', 'customer', 'amount'], numeric: ['amount'] },
  order_regions: { columns: ['id', 'region', 'amount'], numeric: ['amount'] },
  revenue: { columns: ['customer', 'n', 'total'], numeric: ['total'] },
};

/** A view's contents: one entry per row, its columns as text, repeated by multiplicity, sorted. */
export type ViewContents = Record<string, string[][]>;

/** A row's columns as text (a numeric may come as a number or as its exact JSON text). */
export function rowColumns(view: string, row: Row): string[] {
  const spec = VIEW_COLUMNS[view];
  if (!spec) throw new Error(`no columns known for view ${view}`);
  return spec.columns.map((c) => {
    const text = typeof row[c] === 'string' ? (row[c] as string) : JSON.stringify(row[c]);
    return spec.numeric.includes(c) ? Number(text).toFixed(2) : text;
  });
}

/** Sums the weighted changes of every step into each view's contents (what a reader of them holds). */
export class ViewSums {
  private readonly sums = new Map<string, Map<string, number>>();

  add(view: string, changes: Change[]): void {
    if (!VIEW_COLUMNS[view]) return;
    const sums = this.sums.get(view) ?? new Map<string, number>();
    this.sums.set(view, sums);
    for (const c of changes) {
      const key = JSON.stringify(rowColumns(view, c.row));
      const w = (sums.get(key) ?? 0) + c.weight;
      if (w === 0) sums.delete(key);
      else sums.set(key, w);
    }
  }

  contents(): ViewContents {
    return Object.fromEntries(
      Object.keys(VIEW_COLUMNS).map((view) => {
        const rows: string[][] = [];
        for (const [key, w] of this.sums.get(view) ?? []) {
          if (w < 0) throw new Error(`${view}: row ${key} has weight ${w}`);
          for (let k = 0; k < w; k++) rows.push(JSON.parse(key) as string[]);
        }
        return [view, sortRows(rows)];
      }),
    );
  }
}

export const sortRows = (rows: string[][]): string[][] =>
  rows
    .map((r) => JSON.stringify(r))
    .sort()
    .map((r) => JSON.parse(r) as string[]);
