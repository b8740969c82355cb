// JSON numbers read without losing digits. JSON.parse turns every number into a double, which holds
// integers exactly only up to 2^53 and about 15 significant digits: a bigint id of 2^63 − 1 or a
// numeric of 30 digits came out rounded (and 1e400 as Infinity, written back as null), silently, on
// the way in, in a checkpoint and on the way out. Here a number the double does not hold exactly
// stays its own text, as a raw JSON value (JSON.rawJSON, Node 22): JSON.stringify writes it back as
// the same number, and PostgreSQL reads those digits itself. Every other number is a plain number.
// (So is -0 kept: JSON.stringify and String write a negative zero as 0.)

interface RawJson {
  readonly rawJSON: string;
}
// The raw JSON API of Node 22 (not yet in TypeScript's lib).
const Raw = JSON as unknown as {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
  parse(text: string, reviver: (key: string, value: unknown, context: { source?: string }) => unknown): unknown;
};

/**
 * Whether text may hold a number a double cannot: 16 digits in a row (a dot allowed: `\d[\d.]{15}`),
 * a 3-digit exponent, or a negative zero (a double has one, but writes it back as 0). Every ingress
 * body is scanned so: one regular expression of the three took 7 % of the engine thread's time in
 * bench:engine (`--via thread`), most of it trying the run of 16 at every digit. The run is found
 * here by looking at every 16th character only: one that is not a digit or a dot rules out a run
 * through it, so 16 positions are skipped at once, and only a digit or dot there is looked at closer.
 */
export function mayLose(text: string): boolean {
  // `-0` looked for first: a plain search, where the expression tried its class at every `:`, `,`
  // and `[` of the text (3 % of bench:engine's native lane, whose bodies hold no negative number).
  return longRun(text) || EXPONENT.test(text) || (text.includes('-0') && NEGATIVE_ZERO.test(text));
}
const EXPONENT = /[eE][+-]?\d{3}/;
const NEGATIVE_ZERO = /[:,[]\s*-0(?![\d.]*[1-9])/;
const inRun = (c: number): boolean => (c >= 48 && c <= 57) || c === 46;

/** Whether the text has a digit followed by 15 digits or dots (`/\d[\d.]{15}/`). */
function longRun(text: string): boolean {
  const n = text.length;
  // No run of digits and dots reaches back before i (text[i - 1] is neither, or i is 0).
  let i = 0;
  while (i + 15 < n) {
    if (!inRun(text.charCodeAt(i + 15))) {
      i += 16;
      continue;
    }
    let start = i + 15;
    while (start > i && inRun(text.charCodeAt(start - 1))) start -= 1;
    let end = i + 16;
    while (end < n && inRun(text.charCodeAt(end))) end += 1;
    while (start < end && text.charCodeAt(start) === 46) start += 1;
    if (end - start >= 16) return true;
    i = end + 1;
  }
  return false;
}
const MANTISSA = /^-?(\d*)\.?(\d*)/;

/** Whether the double read from `source` is the number it spells (15 significant digits always are). */
function heldExactly(value: number, source: string): boolean {
  if (!Number.isFinite(value) || Object.is(value, -0)) return false;
  const [, whole = '', fraction = ''] = MANTISSA.exec(source) ?? [];
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (value === 0) return !/[1-9]/.test(digits);
  if (digits.replace(/0+$/, '').length <= 15) return true;
  return Number.isSafeInteger(value) && String(value) === source;
}

/** JSON.parse through a reviver that keeps each number `keep` picks as its raw JSON text. */
const parseKeeping = (text: string, keep: (value: number, source: string) => boolean): unknown =>
  Raw.parse(text, (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && keep(value, context.source)
      ? Raw.rawJSON(context.source)
      : value,
  );

/** JSON.parse, keeping a number a double cannot hold exactly as its raw JSON text. */
export function parseExact(text: string): unknown {
  if (!mayLose(text)) return JSON.parse(text);
  return parseKeeping(text, (value, source) => !heldExactly(value, source));
}

/** A JSON number as spelled (2.50, not the double's 2.5): JSON.stringify writes it back as is. */
export const rawNumber = (text: string): unknown => Raw.rawJSON(text);

/** A number kept as its text by parseExact. */
export const isRawNumber = (value: unknown): value is RawJson => Raw.isRawJSON(value);

/**
 * Text where a number may be spelled otherwise than its double writes it back: a fraction ending
 * in 0 (2.50) or an exponent (1e3), in a value's place (after `:`, `,` or `[`), so that a uuid's
 * "4e1c" or a string's "1.50" does not send every page of such rows through the reviver.
 */
const MAY_RESPELL = /[:,[]\s*-?\d+(?:\.\d*0(?!\d)|(?:\.\d+)?[eE])/;

/**
 * parseExact, also keeping a number's spelling wherever the double would write it otherwise
 * (2.50, 1.0, 1e3): for a checkpoint's pages, where 2.50 inside a numeric[] or a jsonb is not 2.5
 * (a multiset delete of the row, an output, a query would all see the difference). Costs a reviver
 * only for pages that hold such a spelling.
 */
export function parseSpelled(text: string): unknown {
  if (!MAY_RESPELL.test(text)) return parseExact(text);
  // String(-0) is "0", so a negative zero is kept too.
  return parseKeeping(text, (value, source) => String(value) !== source);
}
