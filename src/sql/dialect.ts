// The established streaming-SQL dialect's surface, translated to PostgreSQL token by token where
// PostgreSQL has an equivalent, and refused, naming the construct, where it has none. Each change is
// an edit of the statement's text; the edits travel with the statement (split.ts) so that a position
// PostgreSQL reports in the translated text maps back into the user's program.
//
// Types (in a column definition, after `::`, or in CAST(… AS …)): VARIANT and MAP<K,V> → jsonb,
// DOUBLE → double precision, TINYINT → smallint, STRING → text, BINARY/VARBINARY[(n)] → bytea,
// `T ARRAY` → `T[]`, TIMESTAMP WITH LOCAL TIME ZONE → timestamptz. Column annotations that only guide
// the established engine's state (LATENESS, WATERMARK) are dropped, as is LOCAL in CREATE LOCAL VIEW.

export interface DialectToken {
  start: number;
  end: number;
  text: string;
  kind: string;
}

/** Replace program characters [from, to) with `text`. */
export interface Edit {
  from: number;
  to: number;
  text: string;
  /** A MAP<K, V> made jsonb: its key and value types as written (the compiler reports them). */
  map?: MapTypes;
}

export interface MapTypes {
  key: string;
  value: string;
}

/** Where a MAP<K, V> is in a translated statement (its jsonb), and its key and value types. */
export interface MapSpan extends MapTypes {
  from: number;
  to: number;
}

/** A construct with no PostgreSQL equivalent, at program characters [from, to). */
export interface Refusal {
  from: number;
  to: number;
  construct: string;
  message: string;
}

const SIMPLE_TYPES: Record<string, string> = {
  VARIANT: 'jsonb',
  TINYINT: 'smallint',
  STRING: 'text',
};
const BINARY_TYPES = new Set(['BINARY', 'VARBINARY']);
const CAST_FUNCTIONS = new Set(['CAST', 'SAFE_CAST', 'TRY_CAST']);
/** What may follow a column's type: where a dropped annotation ends. */
const COLUMN_CLAUSE = new Set([
  'NOT',
  'NULL',
  'PRIMARY',
  'DEFAULT',
  'UNIQUE',
  'CHECK',
  'REFERENCES',
  'LATENESS',
  'WATERMARK',
  'FOREIGN',
  'CONSTRAINT',
]);
const ANNOTATIONS = new Set(['LATENESS', 'WATERMARK']);
/** Constructs with no PostgreSQL equivalent: token (followed by `next`, if given) → why. */
const REFUSED: Array<{ token: string; next?: string; construct: string; why: string }> = [
  {
    token: 'TUMBLE',
    next: '(',
    construct: 'TUMBLE',
    why: 'window table functions have no PostgreSQL equivalent; group by date_bin(…) instead',
  },
  { token: 'HOP', next: '(', construct: 'HOP', why: 'window table functions have no PostgreSQL equivalent' },
  { token: 'SESSION', next: '(', construct: 'SESSION', why: 'window table functions have no PostgreSQL equivalent' },
  { token: 'ASOF', construct: 'ASOF JOIN', why: 'as-of joins have no PostgreSQL equivalent; use a LATERAL subquery' },
  {
    token: 'RECURSIVE',
    next: 'VIEW',
    construct: 'DECLARE RECURSIVE VIEW',
    why: 'recursive views have no PostgreSQL equivalent; use WITH RECURSIVE in the view',
  },
];

const upper = (t: DialectToken | undefined): string => (t ? t.text.toUpperCase() : '');
const isWord = (t: DialectToken | undefined): boolean => t !== undefined && /^[A-Za-z_"]/.test(t.text);

/** What the rules see and write while one statement's tokens are read. */
class Reader {
  readonly edits: Edit[] = [];
  readonly refusals: Refusal[] = [];
  /** The token before each open parenthesis, innermost last: tells a CAST's `AS` from an alias. */
  readonly openers: string[] = [];
  readonly createTable: boolean;

  constructor(readonly tokens: readonly DialectToken[]) {
    this.createTable = upper(tokens[0]) === 'CREATE' && tokens.slice(1, 4).some((t) => upper(t) === 'TABLE');
  }

  word = (i: number): string => upper(this.tokens[i]);
  text = (i: number): string => this.tokens[i]?.text ?? '';

  replace(from: number, to: number, text: string, map?: MapTypes): void {
    this.edits.push({ from, to, text, ...(map && { map }) });
  }

  blank(i: number, j: number): void {
    for (let k = i; k <= j; k++) {
      const t = this.tokens[k];
      if (t) this.replace(t.start, t.end, ' '.repeat(t.end - t.start));
    }
  }

  /** Directly in a CREATE TABLE's column list (not inside a type's or a default's parentheses). */
  inColumnList = (): boolean => this.createTable && this.openers.length === 1;

  typeContext(i: number): boolean {
    const prev = this.tokens[i - 1];
    if (prev?.text === '::') return true;
    if (upper(prev) === 'AS') return CAST_FUNCTIONS.has(this.openers.at(-1) ?? '');
    // `name TYPE` right after `(` or `,` of a CREATE TABLE's column list.
    const before = this.text(i - 2);
    return this.inColumnList() && isWord(prev) && (before === '(' || before === ',');
  }
}

/** A rule: the index of the last token it consumed from `i`, or -1 when it does not apply. */
type Rule = (r: Reader, i: number) => number;

const refuse: Rule = (r, i) => {
  const t = r.tokens[i];
  const refused = REFUSED.find((x) => x.token === r.word(i) && (x.next === undefined || r.word(i + 1) === x.next));
  if (!t || !refused) return -1;
  const message = `${refused.construct} is not supported: ${refused.why}`;
  r.refusals.push({ from: t.start, to: t.end, construct: refused.construct, message });
  return i;
};

/** CREATE LOCAL VIEW → CREATE VIEW; WITH LOCAL TIME ZONE → WITH TIME ZONE. */
const local: Rule = (r, i) => {
  if (r.word(i) !== 'LOCAL') return -1;
  const fits =
    (r.word(i - 1) === 'CREATE' && r.word(i + 1) === 'VIEW') || (r.word(i - 1) === 'WITH' && r.word(i + 1) === 'TIME');
  if (!fits) return -1;
  r.blank(i, i);
  return i;
};

/** LATENESS / WATERMARK <expr> of a column: dropped up to the next column or constraint. */
const annotation: Rule = (r, i) => {
  if (!ANNOTATIONS.has(r.word(i)) || !r.inColumnList()) return -1;
  let j = i + 1;
  for (let depth = 0; j < r.tokens.length; j++) {
    const u = r.word(j);
    if (u === '(') depth++;
    else if (u === ')' && depth-- === 0) break;
    else if (depth === 0 && (u === ',' || (COLUMN_CLAUSE.has(u) && j > i + 1))) break;
  }
  r.blank(i, j - 1);
  return j - 1;
};

/** `T ARRAY` → `T[]` (ARRAY[…] and ARRAY(…) are constructors, left alone). */
const arrayType: Rule = (r, i) => {
  const t = r.tokens[i];
  if (!t || i === 0 || r.word(i) !== 'ARRAY' || r.text(i + 1) === '[' || r.text(i + 1) === '(') return -1;
  r.replace(t.start, t.end, '[]');
  return i;
};

/**
 * Where the MAP at token `i` ends (`last`), the comma between K and V (the one outside any inner
 * `<…>` or `(…)`), and how many `>` of its closing token close inner maps (the scanner reads `>>`
 * of `MAP<K, MAP<K2, V>>` as one operator): those belong to V.
 */
function mapExtent(r: Reader, i: number): { last: number; comma: number; innerClosers: number } {
  let depth = 0;
  let parens = 0;
  let comma = -1;
  let innerClosers = 0;
  let j = i + 1;
  for (; j < r.tokens.length && depth >= 0; j++) {
    const s = r.text(j);
    if (s === '<') depth++;
    else if (/^>+$/.test(s)) {
      innerClosers = Math.min(s.length, depth) - 1;
      depth -= s.length;
      if (depth <= 0) break;
    } else if (s === '(' || s === ')') parens += s === '(' ? 1 : -1;
    else if (s === ',' && depth === 1 && parens === 0 && comma < 0) comma = j;
  }
  return { last: j, comma, innerClosers: Math.max(0, innerClosers) };
}

/**
 * MAP<K, V>, nested maps included → jsonb. K and V are kept as written, so that the compiler can
 * report the map's key and value types as the established dialect does.
 */
function mapType(r: Reader, i: number): number {
  const { last, comma, innerClosers } = mapExtent(r, i);
  const slice = (a: number, b: number) =>
    r.tokens
      .slice(a, b + 1)
      .map((t, k, all) => (k > 0 && (all[k - 1]?.end ?? 0) < t.start ? ' ' : '') + t.text)
      .join('');
  const map =
    comma > 0
      ? { key: slice(i + 2, comma - 1), value: slice(comma + 1, last - 1) + '>'.repeat(innerClosers) }
      : undefined;
  r.replace(r.tokens[i]?.start ?? 0, r.tokens[last]?.end ?? 0, 'jsonb', map);
  return last;
}

const typeName: Rule = (r, i) => {
  const t = r.tokens[i];
  if (!t || !r.typeContext(i)) return -1;
  const word = r.word(i);
  const simple = SIMPLE_TYPES[word];
  if (simple) r.replace(t.start, t.end, simple);
  else if (word === 'DOUBLE' && r.word(i + 1) !== 'PRECISION') r.replace(t.start, t.end, 'double precision');
  else if (BINARY_TYPES.has(word)) {
    const last = r.text(i + 1) === '(' && r.text(i + 3) === ')' ? i + 3 : i;
    r.replace(t.start, r.tokens[last]?.end ?? t.end, 'bytea');
    return last;
  } else if (word === 'MAP' && r.text(i + 1) === '<') return mapType(r, i);
  else return -1;
  return i;
};

const RULES: Rule[] = [refuse, local, annotation, arrayType, typeName];

/**
 * The edits and refusals of one statement's tokens. `skip(i)` marks tokens already blanked (the
 * relation properties), which are left alone.
 */
export function dialectEdits(tokens: readonly DialectToken[], skip: (i: number) => boolean) {
  const r = new Reader(tokens);
  for (let i = 0; i < tokens.length; i++) {
    if (skip(i)) continue;
    if (r.text(i) === '(') r.openers.push(r.word(i - 1));
    else if (r.text(i) === ')') r.openers.pop();
    for (const rule of RULES) {
      const last = rule(r, i);
      if (last >= 0) {
        i = last;
        break;
      }
    }
  }
  return { edits: r.edits, refusals: r.refusals };
}

/** `text` (starting at program character `base`) with the edits applied, and the map back. */
export function applyEdits(text: string, base: number, edits: readonly Edit[]) {
  const sorted = [...edits].sort((a, b) => a.from - b.from);
  let out = '';
  let at = base;
  // Each segment of the output: where it starts in the output and in the program, and whether it
  // is replaced text (which maps to the start of what it replaced).
  const segments: Array<{ out: number; program: number; replaced: boolean }> = [];
  const maps: MapSpan[] = [];
  for (const e of sorted) {
    if (e.from < at) continue;
    segments.push({ out: out.length, program: at, replaced: false });
    out += text.slice(at - base, e.from - base);
    segments.push({ out: out.length, program: e.from, replaced: true });
    if (e.map) maps.push({ from: out.length, to: out.length + e.text.length, ...e.map });
    out += e.text;
    at = e.to;
  }
  segments.push({ out: out.length, program: at, replaced: false });
  out += text.slice(at - base);
  /** Program character offset of output character `i`. */
  const programOffset = (i: number): number => {
    let seg = segments[0];
    for (const s of segments) if (s.out <= i) seg = s;
    if (!seg) return base + i;
    return seg.replaced ? seg.program : seg.program + (i - seg.out);
  };
  return { sql: out, programOffset, maps };
}
