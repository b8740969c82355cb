import type { JsonValue } from '../model/json.js';
import type { Base, SqlType, Value } from './expressions/types.js';
import type { Row } from './types.js';

// A native row (values by position) as the JSON object a step's changes and a snapshot carry. Every
// output row of every watched view is made here. Members added one by one in a loop (r[name] = …)
// went through V8's generic keyed store: a relation's maker is instead one object literal of its
// columns, generated once, three times faster on bench:engine's rows. Only column positions enter
// the generated text; the names are read from an array, and as computed members they are own
// properties whatever they are ("__proto__" included, which an assignment would take as the
// prototype and lose).

export type RowMaker = (row: readonly Value[]) => Row;
export type ValueToJson = (base: Base, v: Value) => JsonValue;

export function rowMaker(names: readonly string[], types: readonly SqlType[], value: ValueToJson): RowMaker {
  const bases = types.map((t) => t.base);
  const members = names.map((_, i) => `[names[${i}]]: value(bases[${i}], row[${i}])`).join(', ');
  // Function's text is column positions only, nothing of the program's.
  const make = new Function('names', 'bases', 'value', `'use strict'; return (row) => ({ ${members} });`) as (
    names: readonly string[],
    bases: readonly Base[],
    value: ValueToJson,
  ) => RowMaker;
  return make([...names], bases, value);
}
