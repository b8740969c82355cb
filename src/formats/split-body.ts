import { BodyFormat } from '../model/data-queries.js';

// An ingress body cut into bodies of the same format, so that the engine's shard threads decode a
// part each (ingress decoding spread over the workers, docs/engine.md). Only JSON is cut: a body of
// lines at a line's end, an array after a closing brace followed by a comma, each part framed as an
// array of its own. A cut there may still fall inside a string or a nested value; the part before
// it then does not parse (a string left open, a bracket left open), and whoever decodes the parts
// decodes the whole body as one instead. A cut never yields parts that parse to other records than
// the whole body's, in the same order.

/** Where the cut after `from` goes: the index the next part starts at, or -1. */
type NextCut = (text: string, from: number) => number;

const afterLine: NextCut = (text, from) => {
  const i = text.indexOf('\n', from);
  return i < 0 ? -1 : i + 1;
};

const afterRecord: NextCut = (text, from) => {
  const i = text.indexOf('},', from);
  return i < 0 ? -1 : i + 2;
};

/** `inner` cut near each of `parts` equal shares, at `next`; fewer parts where no cut is found. */
function cut(inner: string, parts: number, next: NextCut): string[] {
  const out: string[] = [];
  let start = 0;
  for (let k = 1; k < parts; k++) {
    const at = next(inner, Math.max(start, Math.floor((inner.length * k) / parts)));
    if (at < 0 || at >= inner.length) break;
    out.push(inner.slice(start, at));
    start = at;
  }
  out.push(inner.slice(start));
  return out;
}

/** The body as up to `parts` bodies of its format, or undefined when it is not cut (one part, CSV, not an array). */
export function splitBody(text: string, options: unknown, parts: number): string[] | undefined {
  const format = BodyFormat.safeParse(options);
  if (!format.success || format.data.format !== 'json' || parts < 2) return undefined;
  if (!format.data.array) {
    const lines = cut(text, parts, afterLine);
    return lines.length > 1 ? lines : undefined;
  }
  const open = text.indexOf('[');
  const close = text.lastIndexOf(']');
  if (open < 0 || close < open || text.slice(0, open).trim() !== '' || text.slice(close + 1).trim() !== '')
    return undefined;
  const cuts = cut(text.slice(open + 1, close), parts, afterRecord);
  // The comma that ended each part but the last goes with it: `[a,]` would not parse.
  const records = cuts.map((r, k) => (k < cuts.length - 1 ? r.slice(0, -1) : r));
  // An empty part would parse where the whole does not (`[{…},]` is not JSON; `[{…}]` and `[]` are).
  if (records.length < 2 || records.some((r) => r.trim() === '')) return undefined;
  return records.map((r) => `[${r}]`);
}
