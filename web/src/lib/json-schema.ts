// The part of JSON Schema that z.toJSONSchema writes for the runtime configuration, and what the
// form makes of each member.

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  description?: string;
  $ref?: string;
  [other: string]: unknown;
}

export type Control =
  | { kind: 'boolean' }
  | { kind: 'number'; integer: boolean; min?: number; max?: number }
  | { kind: 'enum'; options: string[] }
  | { kind: 'string'; maxLength?: number }
  | { kind: 'object'; properties: Record<string, JsonSchema> }
  /** Arrays, maps, unions and references: edited as a JSON value. */
  | { kind: 'json' };

const isNull = (s: JsonSchema): boolean => s.type === 'null';

/** `X | null` (the API's nullish members: null means unset) → X. */
export function nonNull(s: JsonSchema): JsonSchema {
  if (s.anyOf) {
    const rest = s.anyOf.filter((a) => !isNull(a));
    if (rest.length === 1 && rest[0]) return nonNull(rest[0]);
    return { ...s, anyOf: rest };
  }
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    return { ...s, type: types.length === 1 ? types[0] : types };
  }
  return s;
}

/** Numbers past 2^53 are zod's "any safe integer" bounds: not worth showing as a range. */
const bound = (n: number | undefined): number | undefined =>
  n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n;

export function controlOf(raw: JsonSchema): Control {
  const s = nonNull(raw);
  if (s.enum && s.enum.every((e) => typeof e === 'string')) return { kind: 'enum', options: s.enum as string[] };
  switch (s.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
    case 'number': {
      const min = bound(s.minimum);
      const max = bound(s.maximum);
      return {
        kind: 'number',
        integer: s.type === 'integer',
        ...(min !== undefined && { min }),
        ...(max !== undefined && { max }),
      };
    }
    case 'string':
      return { kind: 'string', ...(s.maxLength !== undefined && { maxLength: s.maxLength }) };
    case 'object':
      if (s.properties && Object.keys(s.properties).length > 0) return { kind: 'object', properties: s.properties };
      return { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` with the member at `path` set, or removed when `next` is undefined (unset). */
export function setIn(value: Json, path: readonly string[], next: unknown): Json {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const copy = { ...value };
  if (rest.length === 0) {
    if (next === undefined) delete copy[head];
    else copy[head] = next;
    return copy;
  }
  const inner = setIn(isObject(copy[head]) ? copy[head] : {}, rest, next);
  if (Object.keys(inner).length === 0) delete copy[head];
  else copy[head] = inner;
  return copy;
}

export function getIn(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return v;
}
