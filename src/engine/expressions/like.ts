import { SqlError } from './sql-error.js';

// `text LIKE pattern` (the operator ~~) as PostgreSQL matches it in a deterministic collation: `%`
// any run of characters, `_` one character (a code point, not a UTF-16 unit), `\` makes the next
// character literal, everything else itself, case and all. The match runs left to right as
// PostgreSQL's does, so that a pattern ending in a lone `\` fails exactly when PostgreSQL's
// matcher reaches that end (`'abc' LIKE 'x\'` is false, `'abc' LIKE 'a%\'` an error).

const TRUE = 1;
const FALSE = 0;
/** No match here, nor anywhere further along the text: the callers stop looking. */
const ABORT = -1;

const lonelyEscape = () => new SqlError('22025', 'LIKE pattern must not end with escape character');

function match(t: readonly string[], ti: number, p: readonly string[], pi: number): number {
  while (ti < t.length && pi < p.length) {
    const c = p[pi]!;
    if (c === '%') return percent(t, ti, p, pi + 1);
    if (c === '\\') {
      pi += 1;
      if (pi >= p.length) throw lonelyEscape();
      if (t[ti] !== p[pi]) return FALSE;
    } else if (c !== '_' && c !== t[ti]) return FALSE;
    ti += 1;
    pi += 1;
  }
  if (ti < t.length) return FALSE;
  while (pi < p.length && p[pi] === '%') pi += 1;
  return pi >= p.length ? TRUE : ABORT;
}

/** After a `%`: the `%`s and `_`s that follow it taken, then each place the rest could start tried. */
function percent(t: readonly string[], ti: number, p: readonly string[], pi: number): number {
  for (; pi < p.length; pi += 1) {
    if (p[pi] === '_') {
      if (ti >= t.length) return ABORT;
      ti += 1;
    } else if (p[pi] !== '%') break;
  }
  if (pi >= p.length) return TRUE;
  if (p[pi] === '\\' && pi + 1 >= p.length) throw lonelyEscape();
  const first = p[pi] === '\\' ? p[pi + 1] : p[pi];
  for (; ti < t.length; ti += 1) {
    if (t[ti] !== first) continue;
    const matched = match(t, ti, p, pi);
    if (matched !== FALSE) return matched;
  }
  return ABORT;
}

/**
 * `· LIKE pattern` as a test of texts, the pattern split into characters once (a view's pattern is
 * most often a constant); a SqlError 22025 for a lone escape at the end, when a match reaches it.
 */
export function likeMatcher(pattern: string): (text: string) => boolean {
  const p = Array.from(pattern);
  return (text) => match(Array.from(text), 0, p, 0) === TRUE;
}

/** Whether `text` is LIKE `pattern`. */
export const like = (text: string, pattern: string): boolean => likeMatcher(pattern)(text);
