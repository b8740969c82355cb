import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdtemp, open, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rotatedPath, tailFile } from './log-tail.js';

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

  it('rotates past the bound: the old part kept as .1, the file emptied, every line handed out once', async () => {
    const path = join(dir, 'pipeline.log');
    const line = (i: number) => `line ${i} ${'x'.repeat(90)}`;
    await writeFile(path, Array.from({ length: 20 }, (_, i) => `${line(i)}\n`).join(''));
    const lines: string[] = [];
    const tail = tailFile(path, (l) => lines.push(l), { rotateAtBytes: 1_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await stat(path)).size).toBe(0);
    expect((await readFile(rotatedPath(path), 'utf8')).split('\n').filter(Boolean)).toHaveLength(20);
    // The writer appends: its next lines land at the start of the emptied file.
    await appendFile(path, `${line(20)}\n${line(21)}\n`);
    await tail.stop();
    expect(lines).toEqual(Array.from({ length: 22 }, (_, i) => line(i)));
    expect(tail.offset).toBe(2 * (line(20).length + 1));
  });

  it('starts over when the file is truncated under it', async () => {
    const path = join(dir, 'pipeline.log');
    await writeFile(path, 'one\ntwo\n');
    const lines: string[] = [];
    const tail = tailFile(path, (l) => lines.push(l));
    await new Promise((r) => setTimeout(r, 100));
    await truncate(path, 0);
    await appendFile(path, 'three\n');
    await tail.stop();
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  // A real Node child writing 20,000 lines at 10 a millisecond: its start and run take 2-5 s
  // depending on the machine's load, more than vitest's 5 s default may allow.
  it(
    'keeps a real appending writer within twice the bound, its lines in order and none doubled',
    { timeout: 60_000 },
    async () => {
      const path = join(dir, 'pipeline.log');
      const log = await open(path, 'a');
      // A child process writing through an O_APPEND descriptor, as a pipeline process does.
      const writer = spawn(
        process.execPath,
        [
          '-e',
          `let i = 0; const t = setInterval(() => { for (let k = 0; k < 10; k++) console.log('n=' + i++ + ' ' + 'y'.repeat(60)); if (i >= 20000) clearInterval(t); }, 1);`,
        ],
        { stdio: ['ignore', log.fd, 'inherit'] },
      );
      const seen: number[] = [];
      const numberOf = (l: string) => Number(/^n=(\d+) /.exec(l)?.[1]);
      const tail = tailFile(path, (l) => seen.push(numberOf(l)), { rotateAtBytes: 64 * 1024 });
      await once(writer, 'exit');
      await log.close();
      await tail.stop();
      expect(seen.every((n, i) => Number.isInteger(n) && (i === 0 || n > seen[i - 1]!))).toBe(true);
      // Lines written in the microseconds between a rotation's last size read and its truncation are
      // lost (the price of rotating a file another process appends to); everything else arrives.
      expect(seen.length).toBeGreaterThan(19_000);
      // 1.4 MB written; on disk the latest lines only, in order: the kept part, then the file (< bound).
      expect((await stat(path)).size).toBeLessThan(64 * 1024);
      const lines = async (p: string) => (await readFile(p, 'utf8')).split('\n').filter(Boolean).map(numberOf);
      const onDisk = [...(await lines(rotatedPath(path))), ...(await lines(path))];
      expect(onDisk.length).toBeLessThan(seen.length / 4);
      expect(onDisk).toEqual(seen.slice(-onDisk.length));
    },
  );
});
