import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Value } from '../expressions/types.js';
import { sameRow } from '../zset/row-hash.js';
import type { Row } from '../zset/zset.js';
import { column } from '../../../test/support/native-values.js';
import { spillPages } from './page-file.js';
import { memoryPages, PAGE_ROWS, type PageStore, RowLog } from './row-log.js';

// A table's row log against the rows appended to it: read back whole, in order, with their
// weights, across the pages sealed on the way (kept in memory or written to a spill file and read
// from there), every value as it was (-0, a numeric's scale, NaN, NULL, a value kept aside); a
// cleared log is empty and its file gone.

const dir = mkdtempSync(join(tmpdir(), 'svc-row-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sameValue = (a: Value, b: Value) => Object.is(a, b) || sameRow([a], [b]);

/** The first difference between the log's rows and the ones appended (a value, a weight, a count). */
function difference(log: RowLog, rows: Row[], weights: number[]): string | undefined {
  let i = 0;
  for (const [row, weight] of log.entries()) {
    const want = rows[i];
    if (!want) return `more rows than the ${rows.length} appended`;
    if (row.length !== want.length || row.some((v, c) => !sameValue(v, want[c]!)))
      return `row ${i}: ${String(row)} for ${String(want)}`;
    if (weight !== weights[i]) return `row ${i}: weight ${weight} for ${weights[i]}`;
    i += 1;
  }
  if (i !== rows.length) return `${i} rows of the ${rows.length} appended`;
  if (log.size !== rows.length) return `size ${log.size} for ${rows.length}`;
  return undefined;
}

function expectRows(log: RowLog, rows: Row[], weights: number[]): void {
  expect(difference(log, rows, weights)).toBeUndefined();
}

/** A log's rows: `count` of them drawn from a few distinct ones, mostly of weight 1. */
const appended = fc.integer({ min: 0, max: 3 }).chain((w) =>
  fc.record({
    pool: column(w).filter((p) => p.length > 0),
    count: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: PAGE_ROWS - 2, max: 2 * PAGE_ROWS + 3 })),
    weighted: fc.option(fc.integer({ min: 0, max: 3 * PAGE_ROWS }), { nil: undefined }),
    texts: fc.array(fc.string({ unit: 'binary', maxLength: 5 }), { minLength: 1, maxLength: 4 }),
  }),
);

type Appended = typeof appended extends fc.Arbitrary<infer A> ? A : never;

function check(stores: () => PageStore, { pool, count, weighted, texts }: Appended) {
  const log = new RowLog(stores);
  const rows: Row[] = [];
  const weights: number[] = [];
  for (let i = 0; i < count; i++) {
    // A text column beside the drawn ones, so every page has one (any code point, lone surrogates too).
    const row = [...pool[i % pool.length]!, texts[i % texts.length]!];
    const weight = weighted !== undefined && i >= weighted && i % 7 === 0 ? (i % 3) - 1 || 2 : 1;
    log.add(row, weight);
    rows.push(row);
    weights.push(weight);
  }
  expectRows(log, rows, weights);
  // Read again: a page read back is not used up.
  expectRows(log, rows, weights);
  log.clear();
  expectRows(log, [], []);
}

describe('RowLog', () => {
  it('reads back every row appended, in order with its weight, from pages kept in memory', () => {
    fc.assert(
      fc.property(appended, (a) => check(memoryPages, a)),
      { numRuns: 40 },
    );
  });

  it('reads them back from a spill file too (written, or waiting to be), and removes the file when cleared', () => {
    fc.assert(
      fc.property(appended, fc.constantFrom(0, 1, 300_000, 10_048_576), (a, minBytes) => {
        check(spillPages({ dir, minBytes }), a);
        expect(readdirSync(dir)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('writes pages once min_storage_bytes of them wait, and not before', () => {
    const page = (log: RowLog, from: number) => {
      for (let i = from; i < from + PAGE_ROWS; i++) log.add([BigInt(i)], 1);
    };
    // One page of 16,384 bigints is 128 KiB and a little: the second one reaches 200,000 bytes.
    const log = new RowLog(spillPages({ dir, minBytes: 200_000 }));
    page(log, 0);
    expect(readdirSync(dir)).toEqual([]); // it waits in memory: no file yet
    page(log, PAGE_ROWS);
    expect(statSync(join(dir, readdirSync(dir)[0]!)).size).toBeGreaterThan(200_000);
    expect([...log.entries()].map(([row]) => row[0])).toEqual(
      Array.from({ length: 2 * PAGE_ROWS }, (_, i) => BigInt(i)),
    );
    log.clear();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes a sealed page out, holds none of it in memory, and keeps no file open', () => {
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    const log = new RowLog(spillPages({ dir, minBytes: 0 }));
    for (let i = 0; i < PAGE_ROWS + 1; i++) log.add([BigInt(i), `s${i % 3}`], 1);
    expect(open()).toBe(before);
    const [file] = readdirSync(dir);
    // 16,384 rows of a bigint and a text: the bigints' 128 KiB and the texts in the header.
    expect(statSync(join(dir, file!)).size).toBeGreaterThan(PAGE_ROWS * 8);
    const [first] = log.entries();
    expect(first).toEqual([[0n, 's0'], 1]);
    log.clear();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps a page in memory when its spill file cannot be written, and loses no row', () => {
    // The spill directory is a file: the directory cannot be made, nor the page file opened.
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, '');
    try {
      const log = new RowLog(spillPages({ dir: blocked, minBytes: 0 }));
      const rows: Row[] = Array.from({ length: PAGE_ROWS + 5 }, (_, i) => [i, `t${i % 5}`]);
      for (const row of rows) log.add(row, 1);
      expectRows(
        log,
        rows,
        rows.map(() => 1),
      );
    } finally {
      rmSync(blocked);
    }
  });
});
