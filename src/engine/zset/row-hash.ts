import type { Numeric } from '../expressions/numeric.js';
import type { OpaqueValue, Value } from '../expressions/types.js';

// The identity of rows without building strings: a 32-bit hash and an equality, both by the value
// as PostgreSQL prints it (1.0 and 1.00 differ, so do 0 and -0; NaN is NaN). Consolidation and
// per-row state (DISTINCT) bucket rows by the hash and compare the few that share it. Measured on
// bench:engine's rows: building each row's text key (bigints and numerics printed, strings quoted)
// was most of a Z-set's cost.

const M = 0x5bd1e995;

/** A string's FNV-1a hash. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** An integral double's hash (both halves of it when beyond 32 bits). */
const hashIntegral = (n: number): number => (n | 0) ^ Math.imul((n / 4294967296) | 0, M);

export function hashValue(v: Value): number {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? hashIntegral(v) : hashString(String(v));
    case 'bigint':
      return hashIntegral(Number(v)) ^ 0x3c6ef372;
    case 'string':
      return hashString(v);
    case 'boolean':
      return v ? 0x2545f491 : 0x4f6cdd1d;
    default:
      if (v === null) return 0x9e3779b9;
      if ('kind' in v) return v.kind === 'finite' ? Math.imul(hashIntegral(Number(v.n)), 31) + v.scale : v.kind.length;
      return hashString(v.text);
  }
}

export function hashRow(row: readonly Value[]): number {
  let h = row.length;
  for (let i = 0; i < row.length; i++) h = Math.imul(h ^ hashValue(row[i]!), M) ^ (h >>> 15);
  return h;
}

function sameNumeric(a: Numeric, b: Numeric): boolean {
  if (a.kind === 'finite') return b.kind === 'finite' && a.n === b.n && a.scale === b.scale;
  if (a.kind === 'inf') return b.kind === 'inf' && a.sign === b.sign;
  return b.kind === 'nan';
}

/** Equal as PostgreSQL prints them: the Z-set identity of values. */
export function sameValue(a: Value, b: Value): boolean {
  if (a === b) return a !== 0 || Object.is(a, b);
  if (typeof a === 'number') return typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if ('kind' in a) return 'kind' in b && sameNumeric(a, b);
  return !('kind' in b) && a.text === (b as OpaqueValue).text;
}

export function sameRow(a: readonly Value[], b: readonly Value[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValue(a[i]!, b[i]!)) return false;
  return true;
}
