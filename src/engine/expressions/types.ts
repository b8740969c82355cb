// The types the native evaluator knows, and how it holds their values (rows are arrays of these):
// int2/int4 as numbers, int8 as bigints, numeric exactly (numeric.ts), float8 as numbers, text as
// strings, boolean as booleans, and SQL NULL as null. Any other type is `opaque`: its values are
// kept as PostgreSQL's to_json gives them and only passed through, compared for identity when the
// type's text is canonical (one spelling per value), never computed with.

import type { Numeric } from './numeric.js';

export type Base = 'int2' | 'int4' | 'int8' | 'numeric' | 'float8' | 'text' | 'bool' | 'opaque';

export interface SqlType {
  base: Base;
  /** As format_type() spells it (`integer`, `numeric(10,2)`, `date`): output columns are checked against it. */
  name: string;
  /**
   * A numeric whose every value has one scale, though its type has no typmod to say so (EXTRACT's
   * fields): equal values are spelled alike, so it can key a group as a `numeric(p,s)` can.
   */
  fixedScale?: true;
}

export type Value = number | bigint | string | boolean | Numeric | OpaqueValue | null;
/** A value of an opaque type: the JSON value PostgreSQL's to_json gave, kept as is. */
export interface OpaqueValue {
  readonly json: unknown;
  /** Its JSON text: identity of the value (canonical for the types allowed as keys). */
  readonly text: string;
}

const BASES: Record<string, Base> = {
  smallint: 'int2',
  integer: 'int4',
  bigint: 'int8',
  numeric: 'numeric',
  'double precision': 'float8',
  text: 'text',
  boolean: 'bool',
};

/** Opaque types whose output text is canonical: equal values print the same, so they may be keys. */
const CANONICAL =
  /^(date|timestamp(\(\d\))? without time zone|timestamp(\(\d\))? with time zone|uuid|time(\(\d\))? without time zone)$/;

export function typeOf(name: string): SqlType {
  const base = BASES[name] ?? (/^numeric\(\d+,\d+\)$/.test(name) ? 'numeric' : 'opaque');
  return { base, name };
}

export const INT2: SqlType = { base: 'int2', name: 'smallint' };
export const INT4: SqlType = { base: 'int4', name: 'integer' };
export const INT8: SqlType = { base: 'int8', name: 'bigint' };
export const NUMERIC: SqlType = { base: 'numeric', name: 'numeric' };
export const FLOAT8: SqlType = { base: 'float8', name: 'double precision' };
export const TEXT: SqlType = { base: 'text', name: 'text' };
export const BOOL: SqlType = { base: 'bool', name: 'boolean' };

/** Whether equality of the type's values is identity of their representation (so it may be a key). */
/**
 * Whether equal values of the type are spelled alike, so that a group's key shows the one value
 * PostgreSQL would. Not a float8 (0 and -0) nor a numeric of any scale (1.0 and 1.00: PostgreSQL
 * shows whichever it met), but a numeric(p,s), whose values all have scale s, or of a fixed scale.
 */
export const keyable = (t: SqlType): boolean => {
  if (t.base === 'opaque') return CANONICAL.test(t.name);
  if (t.base === 'numeric') return t.fixedScale === true || /^numeric\(\d+,\d+\)$/.test(t.name);
  return t.base !== 'float8';
};

export const isNumericCategory = (t: SqlType): boolean =>
  t.base === 'int2' || t.base === 'int4' || t.base === 'int8' || t.base === 'numeric' || t.base === 'float8';

const RANK: Partial<Record<Base, number>> = { int2: 0, int4: 1, int8: 2, numeric: 3, float8: 4 };

/** PostgreSQL's common type of numeric-category operands (the wider; implicit casts go up only). */
export function widerNumeric(a: SqlType, b: SqlType): SqlType {
  const ra = RANK[a.base]!;
  const rb = RANK[b.base]!;
  const base = ra >= rb ? a.base : b.base;
  return { int2: INT2, int4: INT4, int8: INT8, numeric: NUMERIC, float8: FLOAT8 }[base as 'int2'];
}
