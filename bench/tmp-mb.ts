import { rowMaker } from '../src/engine/json-rows.js';
import { valueToJson } from '../src/engine/expressions/values.js';
import { typeOf } from '../src/engine/expressions/types.js';
import { finite } from '../src/engine/expressions/numeric.js';
const names = ['id', 'region', 'amount'];
const types = ['bigint', 'text', 'numeric(10,2)'].map((t) => typeOf(t));
const rows = Array.from({ length: 10000 }, (_, i) => [BigInt(i), 'r' + (i % 7), finite(BigInt(i * 7919 % 100000), 2)]);
const bases = types.map((t) => t.base);
function keyed() {
  const out = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) { const row = rows[i]!; const r: Record<string, unknown> = {}; for (let c = 0; c < names.length; c++) r[names[c]!] = valueToJson(bases[c]!, row[c]!); out[i] = { weight: 1, row: r }; }
  return out;
}
const make = rowMaker(names, types, valueToJson);
function gen() { const out = new Array(rows.length); for (let i = 0; i < rows.length; i++) out[i] = { weight: 1, row: make(rows[i]!) }; return out; }
for (const [name, f] of [['keyed', keyed], ['gen', gen], ['keyed', keyed], ['gen', gen]] as const) {
  for (let k = 0; k < 50; k++) f();
  const t = performance.now(); for (let k = 0; k < 200; k++) f(); console.log(name, ((performance.now() - t) / 200).toFixed(3), 'ms');
}
