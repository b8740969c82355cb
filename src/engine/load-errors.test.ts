import { describe, expect, it } from 'vitest';
import { openEngine } from './open.js';

// Every view is evaluated over the tables as loaded, as PostgreSQL evaluates it from scratch at step
// 0: count(*) over an empty table is a row (n = 0), so n / n fails at load, whichever way the view
// is kept. A view kept by PGlite without state (a projection nothing reads) was evaluated only over
// its inputs' changes: the load went through, and the first insert failed its step at the
// retraction of the row n = 0, a step PostgreSQL evaluates without error.

const program = (expr: string) => `
  CREATE TABLE t (f float8);
  CREATE VIEW agg AS SELECT count(*) AS n, sum(f) AS s FROM t;
  CREATE VIEW v AS SELECT n, ${expr} AS q FROM agg;
`;

const PATHS = [
  { native: true, workers: 1, maintenance: 'native' },
  { native: true, workers: 3, maintenance: 'native' },
  { native: false, workers: 1, maintenance: 'linear' },
];

describe.each(PATHS)('a view failing over the loaded tables (native: $native, workers: $workers)', (path) => {
  it('fails the load with PostgreSQL error', { timeout: 120_000 }, async () => {
    const kept = new Map<string, string>();
    const error = await openEngine(program('n / n'), {
      ...path,
      onMaintenance: (view, rule) => kept.set(view, rule),
    }).catch((e: unknown) => e);
    expect(kept.get('v')).toBe(path.maintenance);
    expect(error).toMatchObject({ code: '22012', message: 'division by zero' });
  });

  it('loads and steps when the view is fine over them', { timeout: 120_000 }, async () => {
    const engine = await openEngine(program('n / nullif(n, 0)'), path);
    try {
      engine.watch('v');
      await engine.ingest('t', [{ weight: 1, row: { f: 2.5 } }]);
      const step = await engine.step();
      const changes = step.outputs.get('v') ?? [];
      expect(changes.map((c) => [c.weight, c.row])).toEqual(
        expect.arrayContaining([
          [-1, { n: 0, q: null }],
          [1, { n: 1, q: 1 }],
        ]),
      );
      expect(changes).toHaveLength(2);
    } finally {
      await engine.close();
    }
  });
});
