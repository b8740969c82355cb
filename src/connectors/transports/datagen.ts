// datagen: rows made from a plan, for tests and demos. Each plan entry makes `limit` rows (without
// end when absent) at `rate` rows per second at most; every column takes its field's strategy
// (increment: the row's index times `scale`, wrapped into `range`; uniform: random in `range`;
// `values`: picked from the list by that number), else the increment. Random choices come from
// `seed`, so a plan makes the same rows every run.
import type { z } from 'zod';
import type { ColumnInfo, Row } from '../../engine/types.js';
import type { JsonValue } from '../../model/json.js';
import { sleep } from '../backoff.js';
import type { InputRun } from '../input-endpoint.js';
import type { DatagenConfig } from '../schema.js';
import { positionCount } from './position.js';

type Config = z.infer<typeof DatagenConfig>;
type Field = Config['plan'][number]['fields'][string];

const BATCH = 1_000;
const TICK_MS = 100;

/** mulberry32: a small seeded generator (Math.random cannot be seeded). Its whole state is `a`. */
function random(state: number): { next: () => number; state: () => number } {
  let a = state >>> 0;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    state: () => a,
  };
}

function typed(type: string, n: number): JsonValue {
  if (/^(smallint|integer|bigint)/.test(type)) return Math.trunc(n);
  if (/^(numeric|real|double)/.test(type)) return n;
  if (type === 'boolean') return Math.trunc(n) % 2 !== 0;
  if (type === 'date') return new Date(Math.trunc(n) * 86_400_000).toISOString().slice(0, 10);
  if (type.startsWith('timestamp')) return new Date(Math.trunc(n)).toISOString();
  return String(n);
}

function value(field: Field | undefined, column: ColumnInfo, index: number, rand: () => number): JsonValue {
  const f = field ?? { strategy: 'increment' as const, scale: 1, null_percentage: 0 };
  if (f.null_percentage > 0 && rand() * 100 < f.null_percentage) return null;
  const [lo, hi] = f.range ?? [0, Number.MAX_SAFE_INTEGER];
  const span = Math.max(1, hi - lo);
  // The wrap adds `span` only to a negative remainder: `(x % span) + span` loses precision past 2^53
  // (the default range's span is MAX_SAFE_INTEGER), which made every even index an odd value.
  const wrapped = (index * f.scale) % span;
  const n = f.strategy === 'uniform' ? lo + Math.floor(rand() * span) : lo + (wrapped < 0 ? wrapped + span : wrapped);
  if (f.values) return f.values[Math.trunc(n) % f.values.length] ?? null;
  return typed(column.type, n);
}

/**
 * `resume`: the position of the checkpoint the pipeline resumed from, `{entry, made, random}` (the
 * plan entry, its rows made, the generator's state after them): the rows go on from there, the same
 * rows an uninterrupted run would have made, none made twice.
 */
export function datagen(config: Config, resume?: JsonValue): InputRun {
  const rand = random(positionCount(resume, 'random') ?? config.seed ?? 1);
  /** Progress survives a re-run after a failure: which plan entry and how many of its rows. */
  let entry = positionCount(resume, 'entry') ?? 0;
  let made = positionCount(resume, 'made') ?? 0;
  return async (sink) => {
    const columns = sink.table.columns;
    for (; entry < config.plan.length; entry++, made = 0) {
      const plan = config.plan[entry];
      if (!plan) break;
      const limit = plan.limit ?? Infinity;
      const perTick = plan.rate === undefined ? BATCH : Math.max(1, Math.ceil((plan.rate * TICK_MS) / 1000));
      while (made < limit) {
        if (sink.signal.aborted) return;
        await sink.ready();
        const started = Date.now();
        const n = Math.min(perTick, limit - made);
        const rows: Row[] = [];
        for (let k = 0; k < n; k++) {
          const row: Row = {};
          for (const c of columns) row[c.name] = value(plan.fields[c.name], c, made + k, rand.next);
          rows.push(row);
        }
        made += n;
        await sink.pushChanges(
          rows.map((row) => ({ weight: 1, row })),
          0,
          { entry, made, random: rand.state() },
        );
        if (plan.rate !== undefined) await sleep(Math.max(0, TICK_MS - (Date.now() - started)), sink.signal);
      }
    }
    sink.endOfInput();
  };
}
