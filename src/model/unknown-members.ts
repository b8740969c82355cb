import type { z } from 'zod';
import { isObject } from './json.js';

// Forward compatibility of runtime_config and program_config (issue 17): members this version does
// not know, at any depth, are accepted and kept as sent. The schemas are loose objects; this finds
// those members (to log them once) and splits them from the known ones (to keep them verbatim while
// the known ones get their defaults), by walking the same zod schema that validated the value.

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema a wrapper (optional, nullable, default, pipe, lazy, …) stands for. */
function unwrap(def: Def): z.ZodType | undefined {
  if (def.innerType) return def.innerType;
  if (def.type === 'pipe') return def.in;
  if (def.type === 'lazy') return def.getter?.();
  return undefined;
}

/** The object schema under optional/nullable/default/pipe/lazy wrappers or in a union, if there is one. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = defOf(schema);
  if (def.type === 'object') return def.shape;
  if (def.type === 'union') {
    for (const option of def.options ?? []) {
      const shape = objectShape(option);
      if (shape) return shape;
    }
    return undefined;
  }
  const inner = unwrap(def);
  return inner && objectShape(inner);
}

/** Dotted paths (`resources.volume_attributes_class`) of members of `value` that `schema` does not name. */
export function unknownMembers(schema: z.ZodType, value: unknown, prefix = ''): string[] {
  if (!isObject(value)) return [];
  const shape = objectShape(schema);
  if (!shape) return [];
  return Object.entries(value).flatMap(([key, member]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const known = shape[key];
    return known ? unknownMembers(known, member, path) : [path];
  });
}

/** The members of a parsed loose object that its schema names, and the others, as sent. */
export function splitKnown<T extends object>(
  schema: z.ZodType,
  value: T,
): { known: T; unknown: Record<string, unknown> } {
  const shape = objectShape(schema) ?? {};
  const known: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) (key in shape ? known : unknown)[key] = member;
  return { known: known as T, unknown };
}
