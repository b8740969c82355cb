import { z } from 'zod';

/** Any JSON value: for the structures the seed does not show (2.7), accepted and stored as given. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValue: z.ZodType<JsonValue> = z.json();

/** A JSON object whose members are not shown by the seed. */
export const JsonObject = z.record(z.string(), JsonValue);
export type JsonObject = z.infer<typeof JsonObject>;

// Integer kinds of the contract. JSON numbers are IEEE doubles, so int64 values are limited to the
// range a double holds exactly; larger ones would silently change on the way in.
export const uint64 = z.int().min(0);
export const int32 = z.int32();
/** Byte counts where the contract names "the maximum machine size value": any non-negative integer. */
export const byteCount = z.number().int().min(0);
export const finiteDouble = z.number();

/** A plain object (not null, not an array): what a JSON object parses to. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Structural equality of JSON values: objects compare by their members whatever their order (jsonb
 * gives keys back in its own order, so a value read from the database and the same value built
 * fresh differ as text), arrays element by element. A member whose value is `undefined` counts as
 * absent, as it would once written (JSON.stringify and jsonb drop it).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const kx = keys(x);
  if (kx.length !== keys(y).length) return false;
  return kx.every((k) => Object.hasOwn(y, k) && jsonEqual(x[k], y[k]));
}
