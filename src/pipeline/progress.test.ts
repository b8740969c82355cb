import { describe, expect, it } from 'vitest';
import type { StatePage } from '../engine/state.js';
import { counted, progress } from './progress.js';

describe('progress of long work', () => {
  it('logs the rows done and the time taken at most once per interval', () => {
    const lines: [unknown, string][] = [];
    let clock = 1_000;
    const p = progress(
      (fields, message) => void lines.push([fields, message]),
      'writing',
      10_000,
      () => clock,
    );
    p.add(5);
    clock += 9_999;
    p.add(5);
    expect(lines).toEqual([]);
    clock += 1;
    p.add(10);
    clock += 3_000;
    p.add(1);
    clock += 7_000;
    p.add(1);
    expect(lines).toEqual([
      [{ rows: 20, ms: 10_000 }, 'writing'],
      [{ rows: 22, ms: 20_000 }, 'writing'],
    ]);
    expect(p.rows).toBe(22);
  });

  it('counts pages as they are read, passing them on unchanged', async () => {
    const pages: StatePage[] = [
      { section: 'table', name: 't', rows: [1, 2, 3] },
      { section: 'view', name: 'v', rows: [{ n: 1 }] },
    ];
    async function* source() {
      yield* pages;
    }
    const p = progress(() => undefined, 'reading');
    const seen: StatePage[] = [];
    for await (const page of counted(source(), p)) seen.push(page);
    expect(seen).toEqual(pages);
    expect(p.rows).toBe(4);
  });
});
