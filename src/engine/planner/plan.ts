import { parseSync } from 'libpg-query';
import { Unsupported } from '../expressions/casts.js';
import type { Node } from '../expressions/compile.js';
import type { SqlType } from '../expressions/types.js';
import { Consolidate, type Operator } from '../operators/operator.js';
import type { Catalog } from './from.js';
import { planQuery, typesOf } from './select.js';

// A view's circuit from its canonical text (pg_get_viewdef: stars expanded, names qualified, casts
// spelled out), parsed with PostgreSQL's own parser (libpg-query, loaded by the engine's start).
// Either the native circuit, the relations it reads and its columns' types, or the reason the
// view stays with PGlite.

export type ViewPlan =
  { native: true; root: Operator; inputs: string[]; types: SqlType[] } | { native: false; reason: string };

export function planView(viewdef: string, columns: readonly { type: string }[], catalog: Catalog): ViewPlan {
  try {
    const parsed = parseSync(viewdef.trim().replace(/;$/, '')) as { stmts?: { stmt?: Node }[] };
    const stmt = parsed.stmts?.[0]?.stmt?.['SelectStmt'] as Node | undefined;
    if (!stmt || parsed.stmts?.length !== 1) return { native: false, reason: 'not one SELECT' };
    const inputs = new Set<string>();
    const types = typesOf(columns);
    const root = new Consolidate(planQuery(stmt, catalog, inputs, types));
    return { native: true, root, inputs: [...inputs], types };
  } catch (error) {
    if (error instanceof Unsupported) return { native: false, reason: error.message };
    throw error;
  }
}
