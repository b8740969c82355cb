import type { Database } from '../pglite/parking.js';
import type { LoadedStatement } from './program.js';
import type { ColumnInfo, RelationInfo } from './types.js';

// The relations of the loaded program, read back from PostgreSQL's catalog: column names as the
// catalog spells them, types as format_type() prints them, NOT NULL, and primary keys (which give
// tables their upsert semantics). Views are listed in creation order, which is dependency order.

export interface Relation extends RelationInfo {
  /** Tables: the primary key's columns, empty when there is none. */
  primaryKey: string[];
}

interface ColumnRow {
  relname: string;
  attname: string;
  type: string;
  notnull: boolean;
}

export async function readCatalog(db: Database, created: readonly LoadedStatement[]): Promise<Relation[]> {
  const columns = await db.query<ColumnRow>(
    `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull
       FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'p')
        AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.oid, a.attnum`,
  );
  const keys = await db.query<{ relname: string; attname: string }>(
    `SELECT c.relname, a.attname
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
       JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, n) ON true
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE i.indisprimary AND c.relnamespace = 'public'::regnamespace
      ORDER BY c.relname, k.n`,
  );
  const byName = new Map<string, ColumnInfo[]>();
  for (const row of columns.rows) {
    const list = byName.get(row.relname) ?? [];
    list.push({ name: row.attname, type: row.type, nullable: !row.notnull });
    byName.set(row.relname, list);
  }
  const relations: Relation[] = [];
  for (const stmt of created) {
    const c = stmt.creates;
    if (!c) continue;
    const cols = byName.get(c.name);
    if (!cols) continue; // e.g. a temporary relation: not part of the program's schema
    relations.push({
      name: c.name,
      kind: c.kind,
      materialized: c.materialized,
      columns: cols,
      primaryKey: keys.rows.filter((k) => k.relname === c.name).map((k) => k.attname),
    });
  }
  return relations;
}

/** SQL identifier rules: unquoted names fold to lower case; "Quoted" names are exact. */
export function resolveName<T extends { name: string; kind: string }>(
  relations: readonly T[],
  name: string,
  kind: string,
): T | undefined {
  const quoted = /^"((?:[^"]|"")+)"$/.exec(name);
  const ofKind = relations.filter((r) => r.kind === kind);
  if (quoted) return ofKind.find((r) => r.name === quoted[1]!.replace(/""/g, '"'));
  const folded = name.toLowerCase();
  return ofKind.find((r) => r.name === folded) ?? ofKind.find((r) => r.name.toLowerCase() === folded);
}
