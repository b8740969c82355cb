import { describe, expect, it } from 'vitest';
import { splitLines, withNewlines } from './log-lines.js';

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? new TextEncoder().encode(p) : p;
}

describe('log lines over HTTP', () => {
  it('gives each line as soon as its newline arrives, across chunk borders', async () => {
    expect(await collect(splitLines(chunks('a\nb', 'c\n', '\nd\n')))).toEqual(['a', 'bc', '', 'd']);
  });

  it('keeps a character split between chunks whole, and gives a last line without newline', async () => {
    const bytes = new TextEncoder().encode('→ x\ntail');
    expect(await collect(splitLines(chunks(bytes.slice(0, 1), bytes.slice(1))))).toEqual(['→ x', 'tail']);
  });

  it('gives nothing for an empty body', async () => {
    expect(await collect(splitLines(chunks()))).toEqual([]);
  });

  it('round-trips through withNewlines', async () => {
    const text = (await collect(withNewlines(['one', 'two ✓']))).join('');
    expect(text).toBe('one\ntwo ✓\n');
    expect(await collect(splitLines(chunks(text)))).toEqual(['one', 'two ✓']);
  });
});
