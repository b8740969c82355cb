import fc from 'fast-check';
import { loadModule } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Value } from '../expressions/types.js';
import type { Operator } from '../operators/operator.js';
import { planView } from '../planner/plan.js';
import { type Row, ZSet } from '../zset/zset.js';
import { startWorker } from '../host/entry.js';
import type { LaunchShard } from './launch.js';
import { ShardPool } from './pool.js';
import { ShardExited, replySlot, signalSlots, throwIfShardExited } from './protocol.js';
import { waitFor } from './wire.js';

// The circuits on three shard threads (rows exchanged by key before every join, aggregate and
// DISTINCT) against the same circuits on one thread: after every step of random inserts and
// deletes, the same delta; a step that fails (division by zero) fails on both with the same
// message. The native property test compares either with PostgreSQL itself.

const TABLES = new Map([
  [
    't',
    [
      { name: 'k', type: 'integer' },
      { name: 'v', type: 'integer' },
      { name: 's', type: 'text' },
    ],
  ],
  [
    'u',
    [
      { name: 'k', type: 'integer' },
      { name: 'w', type: 'integer' },
    ],
  ],
]);
const catalog = { columnsOf: (r: string) => TABLES.get(r) };

const VIEWS: [string, string[]][] = [
  [
    'SELECT t.k, count(*) AS c, sum(t.v) AS s, min(t.s) AS m FROM t GROUP BY t.k',
    ['integer', 'bigint', 'bigint', 'text'],
  ],
  ['SELECT t.k, t.v, u.w FROM t JOIN u ON t.k = u.k', ['integer', 'integer', 'integer']],
  ['SELECT t.s, u.w FROM t LEFT JOIN u ON t.k = u.k', ['text', 'integer']],
  ['SELECT DISTINCT t.k, t.s FROM t', ['integer', 'text']],
  ['SELECT count(*) AS c, max(t.v) AS m FROM t', ['bigint', 'integer']],
  ['SELECT u.w, count(*) AS c FROM t JOIN u ON t.k = u.k GROUP BY u.w HAVING count(*) > 1', ['integer', 'bigint']],
  ['SELECT t.k, t.v / u.w AS q FROM t JOIN u ON t.k = u.k', ['integer', 'integer']],
];

const key = fc.option(fc.integer({ min: 0, max: 5 }), { freq: 6 });
const tRow = fc.tuple(key, fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'b', 'é', ''));
const uRow = fc.tuple(key, fc.integer({ min: -1, max: 2 }));
/** A step: rows inserted, and which of the rows held to delete (indexes into them). */
const step = fc.record({
  t: fc.array(tRow, { maxLength: 12 }),
  u: fc.array(uRow, { maxLength: 4 }),
  deleteT: fc.array(fc.nat(), { maxLength: 5 }),
  deleteU: fc.array(fc.nat(), { maxLength: 2 }),
});

/** A delta as sorted text (bigints spelled), for comparing. */
const text = (z: ZSet): string[] =>
  [...z.consolidate()]
    .map(({ row, weight }) => JSON.stringify([row, weight], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)))
    .sort();

function run(root: Operator, deltas: Map<string, ZSet>): string[] | Error {
  try {
    return text(root.step({ delta: (r) => deltas.get(r) ?? new ZSet() }));
  } catch (error) {
    return error as Error;
  }
}

describe('shard workers: the same deltas as one thread', { timeout: 300_000 }, () => {
  let pool: ShardPool;
  beforeAll(async () => {
    await loadModule();
    pool = await ShardPool.start(3);
  }, 60_000);
  afterAll(() => pool?.close());

  it.each(VIEWS)('%s', async (def, types) => {
    const columns = types.map((type, i) => ({ name: `c${i}`, type }));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const one = planView(def, columns, catalog);
        const sharded = pool.plan(def, columns, catalog, true);
        if (!one.native || !sharded.native) throw new Error(`not native: ${def}`);
        sharded.root.reset();
        const held: Record<'t' | 'u', Row[]> = { t: [], u: [] };
        for (const s of steps) {
          const deltas = new Map<string, ZSet>();
          for (const table of ['t', 'u'] as const) {
            const z = new ZSet();
            const rows = held[table];
            for (const at of table === 't' ? s.deleteT : s.deleteU)
              if (rows.length > 0) z.add(rows.splice(at % rows.length, 1)[0]!, -1);
            for (const row of table === 't' ? s.t : s.u) {
              rows.push(row as Value[]);
              z.add(row as Value[], 1);
            }
            deltas.set(table, z);
          }
          const want = run(one.root, deltas);
          const got = run(sharded.root, deltas);
          if (want instanceof Error || got instanceof Error) {
            expect(got instanceof Error ? got.message : got).toEqual(want instanceof Error ? want.message : want);
            return;
          }
          expect(got).toEqual(want);
        }
      }),
      { numRuns: 25 },
    );
  });

  // The engine's thread waits for a shard's reply synchronously: a request that threw on the shard
  // outside a step (here a view it never planned) ended the thread unanswered and hung the caller.
  it('a request a shard cannot serve fails, and the shards go on serving', () => {
    expect(() => pool.reset(1_000_000)).toThrow(/reading 'reset'/);
    const [def, types] = VIEWS[0]!;
    const sharded = pool.plan(
      def,
      types.map((type, i) => ({ name: `c${i}`, type })),
      catalog,
      false,
    );
    if (!sharded.native) throw new Error(`not native: ${def}`);
    const t = new ZSet();
    t.add([1, 2, 'a'], 1);
    expect(run(sharded.root, new Map([['t', t]]))).toHaveLength(1);
  });

  // A shard whose thread ended never replies, and the engine's thread, blocked in Atomics.wait,
  // cannot see the worker's 'exit' event: it waited forever. Here a real shard worker gets a start
  // message without its ports, so its first line of serving throws outside any request and the
  // thread ends; whoever waits for a reply learns which shard ended instead of hanging.
  it('a shard whose thread ends is named to whoever waits for it', async () => {
    const count = 2;
    const shared = new SharedArrayBuffer(4 * signalSlots(count));
    const signal = new Int32Array(shared);
    const worker = startWorker('../workers/shard-worker', { workerData: { index: 1, count, signal: shared } });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.on('error', () => undefined); // the TypeError that ends it: expected here
    worker.postMessage({});
    // The test's own bound: without the word of the ended shard this wait would never return.
    const deadline = Date.now() + 30_000;
    const wait = () =>
      waitFor(
        signal,
        replySlot(count),
        () => undefined,
        () => {
          if (Date.now() > deadline) throw new Error('no word of the ended shard within 30 s');
          return throwIfShardExited(signal, count);
        },
      );
    expect(wait).toThrow(ShardExited);
    expect(wait).toThrow('shard 1 of the native engine');
    await exited;
  });

  // A worker that ends before its module has registered its 'exit' handler never says so in the
  // signal: a pool's first synchronous wait for it blocked for good (seen when a worker could not
  // load its module). The pool waits for every worker to be ready, asynchronously, before any such
  // wait: here shard 2 is a real worker whose module throws as it loads, and the start fails.
  it('a pool whose shard worker fails to load fails to start, naming the shard', async () => {
    const launch: LaunchShard = (data) =>
      data.index === 2
        ? startWorker('../workers/failing-shard.fixture', { workerData: data })
        : startWorker('../workers/shard-worker', { workerData: data });
    const started = ShardPool.start(3, { launch });
    await expect(started).rejects.toThrow(ShardExited);
    await expect(started).rejects.toThrow('shard 2 of the native engine');
    await expect(started.catch((e: Error) => String(e.cause))).resolves.toMatch('fails as its module loads');
  });
});
