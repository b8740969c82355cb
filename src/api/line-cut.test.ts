import { describe, expect, it } from 'vitest';
import { LineCut } from './line-cut.js';

/** Everything the stream gives until it ends, or the error that ended it. */
async function readAll(cut: LineCut): Promise<{ text: string } | { error: string }> {
  let text = '';
  try {
    for await (const chunk of cut) text += String(chunk);
    return { text };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('LineCut', () => {
  it('between lines: ends at once, after what was passed through', async () => {
    const cut = new LineCut();
    cut.write('one\n');
    let detached = 0;
    cut.cut(() => detached++);
    expect(detached).toBe(1);
    expect(await readAll(cut)).toEqual({ text: 'one\n' });
  });

  it('in the middle of a line: passes the rest of that line, then ends; what follows is dropped', async () => {
    const cut = new LineCut();
    cut.write('one\ntw');
    let detached = 0;
    cut.cut(() => detached++);
    expect(detached).toBe(0);
    cut.write('o');
    cut.write('\nthree\n');
    expect(detached).toBe(1);
    expect(await readAll(cut)).toEqual({ text: 'one\ntwo\n' });
  });

  it('a line that never ends: broken off after the grace, never a torn last line ending cleanly', async () => {
    const cut = new LineCut(50);
    cut.write('one\ntw');
    cut.cut(() => undefined);
    expect(await readAll(cut)).toEqual({ error: 'the stream ended at shutdown in the middle of a line' });
  });
});
