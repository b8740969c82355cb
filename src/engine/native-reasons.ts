import type { Database } from '../pglite/parking.js';
import type { Relation } from './catalog.js';
import { columnReader } from './native-input.js';
import { typesOfColumns } from './native-views.js';

// Why a table is not native (docs/engine.md, "Native tables"): what its columns and its definition
// ask for beyond what a NativeTable holds. Its readers are decided elsewhere (native-tables.ts).

/** Why a table is not held natively, or undefined when it may be (its readers aside). */
export function columnsReason(relation: Relation): string | undefined {
  const types = typesOfColumns(relation);
  const odd = relation.columns.find((c, i) => !columnReader(c, types[i]!));
  return odd ? `column ${odd.name} is of type ${odd.type}` : undefined;
}

/** Tables whose definition asks PostgreSQL for more than NOT NULL and a primary key. */
export async function constrained(db: Database): Promise<Map<string, string>> {
  const rows = (
    await db.query<{ relname: string; reason: string | null }>(
      `SELECT c.relname, CASE
         WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype NOT IN ('p', 'n'))
           THEN 'it has a constraint other than NOT NULL and PRIMARY KEY'
         WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.confrelid = c.oid)
           THEN 'a foreign key references it'
         WHEN EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                        AND (a.atthasdef OR a.attgenerated <> '' OR a.attidentity <> ''))
           THEN 'a column has a default, an identity or is generated'
         WHEN c.relkind <> 'r' OR c.relhasrules OR EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid)
              OR EXISTS (SELECT 1 FROM pg_inherits i WHERE c.oid IN (i.inhrelid, i.inhparent))
           THEN 'it is partitioned, inherited, or has rules or triggers'
         WHEN EXISTS (SELECT 1 FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.proname <> 'now')
           THEN 'the program defines functions (one may read it)'
         END AS reason
         FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')`,
    )
  ).rows;
  return new Map(rows.filter((r) => r.reason !== null).map((r) => [r.relname, r.reason!]));
}
