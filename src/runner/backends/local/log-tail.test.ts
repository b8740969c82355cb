import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tailFile } from './log-tail.js';

describe('tailFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-tail-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('decodes characters whose bytes straddle two 64 KiB reads', async () => {
    const path = join(dir, 'pipeline.log');
    // 'é' is two bytes: with 65,535 ASCII bytes before it, it is split by the first read.
    const first = 'a'.repeat(65_535) + 'é€😀 done';
    const second = 'Grüße aus Köln';
    await writeFile(path, `${first}\n${second}\n`);
    const lines: string[] = [];
    const tail = tailFile(path, (line) => lines.push(line));
    await tail.stop();
    expect(lines).toEqual([first, second]);
    expect(tail.offset).toBe(Buffer.byteLength(`${first}\n${second}\n`));
  });

  it('holds a line back until its newline arrives, and hands it out on stop', async () => {
    const path = join(dir, 'pipeline.log');
    await writeFile(path, 'one\ntw');
    const lines: string[] = [];
    const tail = tailFile(path, (line) => lines.push(line));
    await new Promise((r) => setTimeout(r, 100));
    expect(lines).toEqual(['one']);
    expect(tail.offset).toBe(4);
    await appendFile(path, 'o\nthr');
    await tail.stop();
    expect(lines).toEqual(['one', 'two', 'thr']);
  });
});
