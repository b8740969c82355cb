import { columnList, inSchema, quote, STATE, W } from './sql.js';
import type { Core } from './view-core.js';

// Delta queries of a SELECT … FROM … WHERE … over relations R1…Rn (the counting algorithm with
// weights): Δ(R1 ⋈ … ⋈ Rn) = Σi R1' ⋈ … ⋈ R(i−1)' ⋈ ΔRi ⋈ R(i+1) ⋈ … ⋈ Rn, where R' is the new
// value and R the old one (new minus its delta). Every relation is read as a weighted one (column
// __svc_w), a row of a term weighs the product of its relations' weights, and a term is written
// only for the relations that changed in this step.

export interface Sources {
  /** Whether the relation changed in this step (its delta is not empty). */
  changed(relation: string): boolean;
  /** Where its delta is: columns and weight, and perhaps more columns the terms do not read. */
  delta(relation: string): string;
  /** Its columns, in order. */
  columns(relation: string): readonly { name: string }[];
  kind(relation: string): 'table' | 'view';
}

/** Where a relation's current value lives: the table, or the view's kept state. */
export const currentOf = (relation: string, kind: 'table' | 'view'): string =>
  kind === 'table' ? `public.${quote(relation)}` : inSchema(STATE, relation);

function weighted(relation: string, version: 'new' | 'old' | 'delta', sources: Sources): string {
  const current = currentOf(relation, sources.kind(relation));
  const delta = sources.delta(relation);
  if (version === 'delta') return delta;
  const now = `SELECT *, 1::bigint AS ${W} FROM ${current}`;
  if (version === 'new' || !sources.changed(relation)) return `(${now})`;
  return `(${now} UNION ALL SELECT ${columnList(sources.columns(relation))}, -${W} FROM ${delta})`;
}

/** The terms (one SELECT each) of the core's delta, selecting `targets` and the row's weight. */
export function deltaTerms(core: Core, targets: string, sources: Sources): string[] {
  const { text, from, where, occurrences } = core;
  const weight = occurrences.map((o) => `${quote(o.alias)}.${W}`).join(' * ');
  const terms: string[] = [];
  occurrences.forEach((changedOne, i) => {
    if (!sources.changed(changedOne.relation)) return;
    let fromText = '';
    let at = from.start;
    occurrences.forEach((o, j) => {
      const version = j < i ? 'new' : j === i ? 'delta' : 'old';
      fromText += text.slice(at, o.start) + weighted(o.relation, version, sources);
      if (!o.hasAlias) fromText += ` AS ${quote(o.alias)}`;
      at = o.end;
    });
    fromText += text.slice(at, from.end);
    const whereText = where ? ` WHERE ${text.slice(where.start, where.end)}` : '';
    terms.push(`SELECT ${targets}, ${weight} AS ${W} ${fromText}${whereText}`);
  });
  return terms;
}

/** The core's text with `condition` added to its WHERE (or a WHERE added before GROUP BY). */
export function restricted(core: Core, condition: string): string {
  const { text, where, from } = core;
  if (where)
    return `${text.slice(0, where.start)} (${text.slice(where.start, where.end)}) AND ${condition} ${text.slice(where.end)}`;
  return `${text.slice(0, from.end)} WHERE ${condition} ${text.slice(from.end)}`;
}
