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
