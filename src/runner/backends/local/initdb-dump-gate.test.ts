import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InitdbDumpGate } from './initdb-dump-gate.js';

describe('InitdbDumpGate (real files)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one start go first; the others go once the template is written', async () => {
    const path = join(dir, 'cache', 'engine-a.tar');
    const gate = new InitdbDumpGate(path);
    const release = await gate.admit();
    expect(release).toBeInstanceOf(Function);
    const order: string[] = [];
    const waiting = [1, 2, 3].map((i) => gate.admit().then((r) => order.push(`start ${i} ${r ? 'first' : 'after'}`)));
    release?.(new Promise(() => undefined)); // the first process keeps running
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual([]);
    order.push('template written');
    writeFileSync(path, 'dump');
    await Promise.all(waiting);
    expect(order).toEqual(['template written', 'start 1 after', 'start 2 after', 'start 3 after']);
    // Once it exists nobody waits.
    expect(await gate.admit()).toBeUndefined();
  });

  it('a first process that exits without a template hands the turn to the next start', async () => {
    const gate = new InitdbDumpGate(join(dir, 'cache', 'engine-b.tar'));
    const first = await gate.admit();
    const second = gate.admit();
    first?.(Promise.resolve());
    expect(await second).toBeInstanceOf(Function);
  });

  it('a start that hands over its turn leaves nothing running: no watch, no timer, no late mkdir', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    const gate = new InitdbDumpGate(join(dir, 'fresh', 'engine-c.tar'));
    const first = await gate.admit();
    const second = gate.admit();
    first?.(Promise.resolve());
    await second;
    // The directory the watch needed was made before the turn passed, not after (a mkdir still in
    // flight is what once raced the suite's cleanup: ENOTEMPTY).
    expect(existsSync(join(dir, 'fresh'))).toBe(true);
    expect(process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length).toBeLessThanOrEqual(before);
  });
});
