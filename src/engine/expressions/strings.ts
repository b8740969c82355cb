import { SqlError } from './sql-error.js';
import type { SqlType, Value } from './types.js';

// Text functions the native path evaluates as PostgreSQL does (strings.property.test.ts compares
// them with PostgreSQL on texts of characters beyond one UTF-16 unit): substring/substr, left,
// right, strpos/position, replace, split_part, btrim/ltrim/rtrim, and the text of an integer, a
// numeric or a boolean (a cast to text, `||` with one). Positions and lengths count characters
// (code points), as PostgreSQL's do in UTF-8. lower/upper/initcap stay PostgreSQL's: its case
// mapping (one character at a time: upper('ß') is 'ẞ') is not JavaScript's.

type Strict = (args: readonly Value[]) => Value;

/** Whether the text has a character of two UTF-16 units (then positions need its code points). */
const ASTRAL = /[\uD800-\uDFFF]/;
const chars = (s: string): string[] => (ASTRAL.test(s) ? Array.from(s) : s.split(''));

/** PostgreSQL's substring(s, start [, count]): characters start… (1-based), `count` of them. */
function substring(s: string, start: number, count?: number): string {
  if (count !== undefined && count < 0) throw new SqlError('22011', 'negative substring length not allowed');
  const cs = chars(s);
  const from = Math.max(start, 1);
  const to = count === undefined ? cs.length + 1 : start + count;
  return to <= from ? '' : cs.slice(from - 1, to - 1).join('');
}

/** left(s, n): the first n characters; a negative n, all but the last |n|. */
function left(s: string, n: number): string {
  const cs = chars(s);
  return cs.slice(0, Math.max(n >= 0 ? n : cs.length + n, 0)).join('');
}

/**
 * right(s, n): the last n characters; a negative n, all but the first |n|. PostgreSQL negates n in
 * 32 bits, so -2147483648 stays negative and skips no character: the whole text.
 */
function right(s: string, n: number): string {
  const cs = chars(s);
  const skip = n >= 0 ? cs.length - n : n === -2147483648 ? 0 : -n;
  return cs.slice(Math.min(Math.max(skip, 0), cs.length)).join('');
}

/** strpos(s, sub): the character position of sub's first occurrence, 0 if none, 1 for ''. */
function strpos(s: string, sub: string): number {
  const at = s.indexOf(sub);
  return at < 0 ? 0 : chars(s.slice(0, at)).length + 1;
}

/** split_part(s, delimiter, n): the n-th field (from the end when negative); 0 fails. */
function splitPart(s: string, delimiter: string, n: number): string {
  if (n === 0) throw new SqlError('22023', 'field position must not be zero');
  // An empty delimiter: the whole text is the one field (PostgreSQL's, and an empty text none).
  const fields = delimiter === '' ? (s === '' ? [] : [s]) : s.split(delimiter);
  const field = n > 0 ? fields[n - 1] : fields[fields.length + n];
  return field ?? '';
}

/** btrim/ltrim/rtrim(s [, characters]): the characters taken off either end (a space by default). */
function trim(s: string, set: string, leading: boolean, trailing: boolean): string {
  const strip = new Set(chars(set));
  const cs = chars(s);
  let from = 0;
  let to = cs.length;
  if (leading) while (from < to && strip.has(cs[from]!)) from++;
  if (trailing) while (to > from && strip.has(cs[to - 1]!)) to--;
  return cs.slice(from, to).join('');
}

/** A function's argument types as its signatures name them: `text`, `int` (int2 or int4), or other. */
const kind = (t: SqlType): string =>
  t.base === 'text' ? 'text' : t.base === 'int2' || t.base === 'int4' ? 'int' : t.name;

interface TextFunction {
  /** The argument kinds it takes, each list joined by commas. */
  signatures: string[];
  f: Strict;
}

const substr: TextFunction = {
  signatures: ['text,int', 'text,int,int'],
  f: ([s, start, n]) => substring(s as string, start as number, n as number | undefined),
};
const strposOf: TextFunction = { signatures: ['text,text'], f: ([s, sub]) => strpos(s as string, sub as string) };
const trimOf = (leading: boolean, trailing: boolean): TextFunction => ({
  signatures: ['text', 'text,text'],
  f: ([s, set]) => trim(s as string, (set as string | undefined) ?? ' ', leading, trailing),
});

const FUNCTIONS: Record<string, TextFunction> = {
  substring: substr,
  substr,
  left: { signatures: ['text,int'], f: ([s, n]) => left(s as string, n as number) },
  right: { signatures: ['text,int'], f: ([s, n]) => right(s as string, n as number) },
  strpos: strposOf,
  position: strposOf,
  replace: {
    signatures: ['text,text,text'],
    f: ([s, from, to]) => (from === '' ? s! : (s as string).split(from as string).join(to as string)),
  },
  split_part: { signatures: ['text,text,int'], f: ([s, d, n]) => splitPart(s as string, d as string, n as number) },
  btrim: trimOf(true, true),
  ltrim: trimOf(true, false),
  rtrim: trimOf(false, true),
};

/** A text function of `name` on arguments of `types`, or undefined when it is not one of these. */
export function stringFunction(name: string, types: readonly SqlType[]): Strict | undefined {
  const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  return fn?.signatures.includes(types.map(kind).join(',')) ? fn.f : undefined;
}
