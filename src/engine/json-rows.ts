import type { JsonValue } from '../model/json.js';
import type { Base, SqlType, Value } from './expressions/types.js';
import type { Row } from './types.js';

// A native row (values by position) as the JSON object a step's changes and a snapshot carry. Every
// output row of every watched view is made here. Members added one by one in a loop (r[name] = …)
// go through V8's generic keyed store: a relation's maker is instead one object literal of its
// columns, generated once. Measured in bench:engine's native lane (1,000,000 orders, changes of
// every view): 297–383 ms in all against 400–531 ms for the loop, alternating runs. The literal
// names its members (JSON.stringify spells each name as a JS string literal): with computed members
// read from an array, every view of three columns had the same source, which V8 compiles once and
// whose literal then sees every view's names: 3 times slower than the loop. "__proto__" is the one
// computed member, as a plain one would set the prototype (an assignment lost that column too).

export type RowMaker = (row: readonly Value[]) => Row;
export type ValueToJson = (base: Base, v: Value) => JsonValue;

export function rowMaker(names: readonly string[], types: readonly SqlType[], value: ValueToJson): RowMaker {
  const bases = types.map((t) => t.base);
  const members = names
    .map((n, i) => `${n === '__proto__' ? '["__proto__"]' : JSON.stringify(n)}: value(bases[${i}], row[${i}])`)
    .join(', ');
  const make = new Function('bases', 'value', `'use strict'; return (row) => ({ ${members} });`) as (
    bases: readonly Base[],
    value: ValueToJson,
  ) => RowMaker;
  return make(bases, value);
}
