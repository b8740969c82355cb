import type { Field, Relation } from '../../model/program.js';
import type { Queryable } from '../../store/database.js';
import { caseSensitive, TypeResolver } from './column-type.js';

// Reads the relations a program created from the scratch database's catalog, inside the
// compilation's own transaction (so the DDL is visible there and nowhere else).

interface RelationRow {
  oid: number;
  relname: string;
  relkind: string;
  primary_key: string[] | null;
}

interface ColumnRow {
  attrelid: number;
  attname: string;
  attnum: number;
  atttypid: number;
  atttypmod: number;
  attnotnull: boolean;
  default_expr: string | null;
  read_by_view: boolean;
}

export interface CatalogRelation extends Relation {
  kind: 'table' | 'view';
  /** Tables a view reads (for the "join without a primary key" warning). */
  readsTables: string[];
}

const RELATIONS = `
  SELECT c.oid::int AS oid, c.relname, c.relkind,
         (SELECT array_agg(a.attname ORDER BY k.ord)
            FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord), pg_attribute a
           WHERE i.indrelid = c.oid AND i.indisprimary AND a.attrelid = c.oid AND a.attnum = k.attnum
         ) AS primary_key
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
   ORDER BY c.oid`;

// A column is read by a view when a view's rewrite rule depends on it (Postgres records
// column-level dependencies for every column a view's query references, `*` expanded).
const COLUMNS = `
  SELECT a.attrelid::int AS attrelid, a.attname, a.attnum, a.atttypid::int AS atttypid, a.atttypmod, a.attnotnull,
         pg_get_expr(d.adbin, d.adrelid) AS default_expr,
         EXISTS (SELECT 1 FROM pg_depend dep JOIN pg_rewrite r ON r.oid = dep.objid
                  WHERE dep.classid = 'pg_rewrite'::regclass AND dep.refobjid = a.attrelid
                    AND dep.refobjsubid = a.attnum AND r.ev_class <> a.attrelid) AS read_by_view
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
   ORDER BY a.attrelid, a.attnum`;

const READS = `
  SELECT DISTINCT r.ev_class::int AS view, t.relname AS table_name
    FROM pg_rewrite r JOIN pg_depend dep ON dep.classid = 'pg_rewrite'::regclass AND dep.objid = r.oid
    JOIN pg_class t ON t.oid = dep.refobjid AND t.relkind IN ('r', 'p')
   WHERE r.ev_class = ANY($1::oid[]) AND dep.refobjid <> r.ev_class`;

export async function readCatalog(q: Queryable): Promise<CatalogRelation[]> {
  const relations = await q.query<RelationRow>(RELATIONS);
  const oids = relations.map((r) => r.oid);
  const columns = await q.query<ColumnRow>(COLUMNS, [oids]);
  const reads = await q.query<{ view: number; table_name: string }>(READS, [oids]);
  const types = new TypeResolver(q);
  const result: CatalogRelation[] = [];
  for (const r of relations) {
    const isTable = r.relkind === 'r' || r.relkind === 'p';
    const fields: Field[] = [];
    for (const c of columns.filter((col) => col.attrelid === r.oid))
      fields.push({
        name: c.attname,
        case_sensitive: caseSensitive(c.attname),
        columntype: await types.columnType(c.atttypid, c.atttypmod, !c.attnotnull),
        ...(c.default_expr !== null && { default: c.default_expr }),
        unused: isTable && !c.read_by_view,
      });
    result.push({
      kind: isTable ? 'table' : 'view',
      name: r.relname,
      case_sensitive: caseSensitive(r.relname),
      fields,
      // Always present: the established clients read it without a default (the Python SDK's
      // SQLTable/SQLView.from_dict raise KeyError without it).
      materialized: r.relkind === 'm',
      ...(r.primary_key && { primary_key: r.primary_key }),
      readsTables: reads.filter((x) => x.view === r.oid).map((x) => x.table_name),
    });
  }
  return result;
}
