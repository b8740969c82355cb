import { castOf, Unsupported } from './casts.js';
import type { Compiled } from './compile.js';
import { commonTemporal } from './temporal-casts.js';
import { isNumericCategory, NUMERIC, type SqlType, type Value, widerNumeric } from './types.js';

// The types of expressions brought together: a cast to a type, the implicit conversion PostgreSQL
// inserts where an operator or a function takes another type, and the common type of several
// expressions (UNION, CASE, COALESCE, a comparison).

/** The value of f(arg), NULL when arg is NULL. */
export const strict1 =
  (e: Compiled, f: (v: Value) => Value) =>
  (row: readonly Value[]): Value => {
    const v = e.eval(row);
    return v === null ? null : f(v);
  };

export const castTo = (from: SqlType, to: SqlType): ((v: Value) => Value) => {
  const cast = castOf(from, to);
  if (!cast) throw new Unsupported(`a cast from ${from.name} to ${to.name}`);
  return cast;
};

/** An expression converted to `to` (implicit casts PostgreSQL inserts and does not print). */
export function coerce(e: Compiled, to: SqlType): Compiled {
  if (e.type.name === to.name) return e;
  // Same values, another name: a numeric's typmod may be dropped, not added (that would round).
  if (e.type.base === to.base && e.type.base !== 'opaque' && (to.base !== 'numeric' || to.name === 'numeric'))
    return { ...e, type: to };
  return { type: to, eval: strict1(e, castTo(e.type, to)) }; // a cast: no longer the column as it is
}

/**
 * PostgreSQL's common type of several expressions (UNION, CASE, COALESCE, a comparison): the widest
 * of the numeric category, the one type of all, or the widest of dates and times.
 */
export function commonType(types: SqlType[]): SqlType {
  const [first] = types;
  if (!first) throw new Unsupported('an empty list');
  if (types.every(isNumericCategory)) return types.reduce(widerNumeric);
  if (types.every((t) => t.base === first.base && (t.base !== 'opaque' || t.name === first.name)))
    return first.base === 'numeric' ? NUMERIC : first;
  const temporal = commonTemporal(types);
  if (temporal) return temporal;
  throw new Unsupported(`a mix of ${types.map((t) => t.name).join(', ')}`);
}
