// Bounds on one input record (docs/security.md "Input limits"). Each is checked per record: a record
// past one is refused on its own (listed in the 400 ParseErrors answer) and the others of the same
// request still go in.

/**
 * |weight| of one change. The engine keeps a table or view as a multiset of physical rows, so a row of
 * weight n is n copies: 2^53 − 1 meant generate_series(1, 2^53 − 1) and a pipeline frozen for good.
 */
export const MAX_WEIGHT = 100_000;

/**
 * Nesting of arrays and objects inside one record (the record object is level 1). Serializing a
 * value is recursive: 100,000 levels overflowed the stack and failed the whole request with a 500.
 */
export const MAX_DEPTH = 64;

/** Bytes of one record's text (a JSON line, an array element, a CSV line). */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** Bytes of one ingress request body (the pipeline's and the API's limit: 413 beyond). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** Why a weight is refused, or undefined when it is within bounds. */
export function weightError(weight: unknown): string | undefined {
  if (typeof weight !== 'number' || !Number.isSafeInteger(weight) || weight === 0)
    return `"weight" must be a non-zero integer, got ${JSON.stringify(weight) ?? 'nothing'}`;
  if (Math.abs(weight) > MAX_WEIGHT)
    return `"weight" must be between -${MAX_WEIGHT} and ${MAX_WEIGHT} (each unit is a stored copy of the row), got ${weight}`;
  return undefined;
}

/**
 * Whether `v`, found at `depth`, nests deeper than MAX_DEPTH. Recursive, yet never more than
 * MAX_DEPTH + 1 calls deep whatever the value's depth (it stops there), and it allocates nothing:
 * it runs on every record of every ingest (an iterative walk's stack of tuples was 3 % of a step).
 */
function deeper(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const child of v) if (typeof child === 'object' && child !== null && deeper(child, depth + 1)) return true;
    return false;
  }
  // A scalar member is looked at and passed, with no call and no own-member test: most records'
  // members are all scalars, and this runs on each of them (3 % of the engine's thread before).
  const o = v as Record<string, unknown>;
  for (const key in o) {
    const child = o[key];
    if (typeof child === 'object' && child !== null && Object.hasOwn(o, key) && deeper(child, depth + 1)) return true;
  }
  return false;
}

/** Why a record nests too deep, or undefined. */
export function depthError(value: unknown): string | undefined {
  return deeper(value, 1) ? `the record nests arrays and objects more than ${MAX_DEPTH} levels deep` : undefined;
}

/** Whether text of this many UTF-16 units can be over MAX_RECORD_BYTES in UTF-8 (3 bytes a unit at most). */
export const mayExceed = (length: number): boolean => length * 3 > MAX_RECORD_BYTES;

/** Why a record's text is too large, or undefined. */
export function sizeError(bytes: number): string | undefined {
  return bytes > MAX_RECORD_BYTES ? `the record is ${bytes} bytes, over the limit of ${MAX_RECORD_BYTES}` : undefined;
}
