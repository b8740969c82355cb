import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Relation } from './catalog.js';
import { currentOf, type Sources } from './delta-sql.js';
import { readDelta, recompute } from './recompute.js';
import { applyGroup, applyLinear } from './rules.js';
import { DELTA, inSchema, quote, STATE } from './sql.js';
import type { Change } from './types.js';
import { mentioned, type Shape, viewShape } from './view-shape.js';

// Which way each view is kept, decided once when the program loads, and the views' half of a step:
// in dependency order, each view brings its state up to date from the deltas of what it reads and
// writes its own delta. A view none of whose inputs changed does nothing (unless it reads the
// clock or a volatile function).

interface Plan {
  view: Relation;
  shape: Shape;
  /** Relations it reads; undefined when one of them is not the program's (then it always runs). */
  inputs: string[] | undefined;
  /** Reads NOW() or a volatile function: evaluated every step. */
  always: boolean;
}

export class ViewMaintainer {
  private constructor(
    private readonly plans: Plan[],
    private readonly catalog: readonly Relation[],
  ) {}

  static async plan(
    db: PGlite,
    catalog: Relation[],
    incremental: boolean,
    onMaintenance?: (view: string, maintenance: string, reason?: string) => void,
  ): Promise<ViewMaintainer> {
    const aggregates = new Set(
      (
        await db.query<{ name: string }>(`SELECT DISTINCT proname AS name FROM pg_proc WHERE prokind IN ('a', 'w')`)
      ).rows.map((r) => r.name),
    );
    const known = new Set(catalog.map((r) => r.name));
    const plans: Plan[] = [];
    const indexes = new Set<string>();
    for (const view of catalog.filter((r) => r.kind === 'view')) {
      const [info] = (
        await db.query<{ def: string; always: boolean }>(
          `SELECT pg_get_viewdef(c.oid) AS def,
                  EXISTS (SELECT 1 FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass
                            AND d.objid = r.oid AND d.refclassid = 'pg_proc'::regclass
                            JOIN pg_proc p ON p.oid = d.refobjid
                           WHERE r.ev_class = c.oid AND (p.provolatile = 'v' OR p.oid = 'public.now()'::regprocedure)) AS always
             FROM pg_class c WHERE c.oid = $1::regclass`,
          [`public.${quote(view.name)}`],
        )
      ).rows;
      const def = info?.def ?? '';
      const names = mentioned(def);
      const inputs = names.every((n) => known.has(n)) ? names : undefined;
      let shape: Shape = viewShape(def, aggregates);
      if (!incremental) shape = { rule: 'recompute', reason: 'incremental maintenance is off' };
      else if (info?.always) shape = { rule: 'recompute', reason: 'reads NOW() or a volatile function' };
      else if (!inputs) shape = { rule: 'recompute', reason: 'reads a relation that is not the program’s' };
      view.maintenance = shape.rule;
      onMaintenance?.(view.name, shape.rule, shape.rule === 'recompute' ? shape.reason : undefined);
      plans.push({ view, shape, inputs, always: info?.always ?? false });
      for (const sql of indexesFor(view, shape, catalog)) indexes.add(sql);
    }
    if (indexes.size > 0) await db.exec([...indexes].join('\n'));
    return new ViewMaintainer(plans, catalog);
  }

  /** The views' half of a step, after the tables' deltas are written. Returns the changed views' deltas. */
  async step(tx: Transaction, changedTables: ReadonlySet<string>): Promise<Map<string, Change[]>> {
    const changed = new Set(changedTables);
    const byName = new Map(this.catalog.map((r) => [r.name, r]));
    const sources: Sources = {
      changed: (r) => changed.has(r),
      columns: (r) => byName.get(r)?.columns ?? [],
      kind: (r) => byName.get(r)?.kind ?? 'table',
    };
    const outputs = new Map<string, Change[]>();
    for (const { view, shape, inputs, always } of this.plans) {
      if (!always && inputs && !inputs.some((r) => changed.has(r))) continue;
      if (shape.rule === 'linear') await applyLinear(tx, view, shape.arms, sources);
      else if (shape.rule === 'group') await applyGroup(tx, view, shape, sources);
      else await recompute(tx, view);
      const [any] = (await tx.query<{ any: boolean }>(`SELECT EXISTS (TABLE ${inSchema(DELTA, view.name)}) AS any`))
        .rows;
      if (!any?.any) continue;
      changed.add(view.name);
      outputs.set(view.name, await readDelta(tx, view));
    }
    return outputs;
  }
}

/** Indexes that make a rule's lookups cheap: join columns of its inputs, group keys of its state. */
function indexesFor(view: Relation, shape: Shape, catalog: readonly Relation[]): string[] {
  const out: string[] = [];
  const on = (relation: string, columns: string[]) => {
    const r = catalog.find((c) => c.name === relation);
    if (!r || columns.some((c) => !r.columns.some((rc) => rc.name === c))) return;
    out.push(`CREATE INDEX ON ${currentOf(relation, r.kind)} (${columns.map(quote).join(', ')});`);
  };
  const cores = shape.rule === 'linear' ? shape.arms : shape.rule === 'group' ? [shape.core] : [];
  for (const core of cores)
    for (const eq of core.equalities) {
      const occurrence = core.occurrences.find((o) => o.alias === eq.alias);
      if (occurrence) on(occurrence.relation, [eq.column]);
    }
  if (shape.rule === 'group') {
    const stateKeys = shape.keys.map((k) => view.columns[k.column]!.name);
    out.push(`CREATE INDEX ON ${inSchema(STATE, view.name)} (${stateKeys.map(quote).join(', ')});`);
    const [only] = shape.core.occurrences;
    if (shape.core.occurrences.length === 1 && only) {
      const plain = shape.keys.map((k) => /^(?:\w+\.)?"?(\w+)"?$/.exec(k.expr)?.[1]);
      if (plain.every((c) => c !== undefined)) on(only.relation, plain as string[]);
    }
  }
  return out;
}
