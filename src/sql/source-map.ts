// Positions in a program: the Postgres scanner counts UTF-8 bytes, PGlite's error `position`
// counts characters of the statement sent, and the contract wants 1-based lines and columns.

export interface LineColumn {
  line: number;
  column: number;
}

export class SourceMap {
  private readonly lineStarts: number[] = [0];
  private readonly byteToChar: ((byte: number) => number) | undefined;

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.lineStarts.push(i + 1);
    // ASCII programs (the usual case) need no byte map at all.
    if (Buffer.byteLength(text, 'utf8') !== text.length) {
      // By code point: a character outside the BMP (an emoji) is two UTF-16 units and 4 bytes; its
      // halves read one at a time would count 3 bytes each and shift every offset after it.
      const map: number[] = [];
      for (let i = 0; i < text.length;) {
        const cp = text.codePointAt(i) ?? 0;
        const units = cp > 0xffff ? 2 : 1;
        const bytes = Buffer.byteLength(text.slice(i, i + units), 'utf8');
        for (let b = 0; b < bytes; b++) map.push(i);
        i += units;
      }
      map.push(text.length);
      this.byteToChar = (byte) => map[byte] ?? text.length;
    }
  }

  /** Character offset of a scanner (byte) offset. */
  charOf(byte: number): number {
    return this.byteToChar ? this.byteToChar(byte) : byte;
  }

  /** 1-based line and column of a 0-based character offset. */
  lineColumn(offset: number): LineColumn {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.lineStarts[lo] ?? 0) + 1 };
  }

  /** The source line of `at` and a caret line under columns start..end (same line only). */
  snippet(at: LineColumn, end: LineColumn): string {
    const start = this.lineStarts[at.line - 1] ?? 0;
    const next = this.lineStarts[at.line];
    const line = this.text.slice(start, next === undefined ? undefined : next - 1).replace(/\r$/, '');
    const width = end.line === at.line ? Math.max(1, end.column - at.column + 1) : 1;
    return `${line}\n${' '.repeat(at.column - 1)}${'^'.repeat(width)}`;
  }
}
