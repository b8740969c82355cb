import type { ColumnInfo } from './types.js';

// Columns of type json or jsonb hold JSON values, whose text form is JSON text: in a CSV field of
// COPY (copy-text.ts), of an ingress body (formats/csv-decode.ts) and of an egress or output
// connector's CSV (formats/encode.ts) alike.

const JSON_TYPE = /^jsonb?$/;

/** Whether a column of this type (as format_type() prints it) holds JSON. */
export const isJsonType = (type: string): boolean => JSON_TYPE.test(type);

/** The names of the columns that hold JSON. */
export const jsonColumnNames = (columns: readonly Pick<ColumnInfo, 'name' | 'type'>[]): ReadonlySet<string> =>
  new Set(columns.filter((c) => isJsonType(c.type)).map((c) => c.name));
