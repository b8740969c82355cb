import type { ColumnType, Field } from '../../model/program.js';
import type { Queryable } from '../../store/database.js';
import { kvTable, MAP_DOMAIN } from './map-types.js';

// The recursive `columntype` of seed 2.5, read from the scratch database's catalog: base types by
// their SQL name, arrays with their `component`, composite types with their `fields`, domains as
// their base type (NOT NULL domains are not nullable).

interface TypeRow {
  typtype: string;
  typelem: number;
  typrelid: number;
  typbasetype: number;
  typtypmod: number;
  typnotnull: boolean;
  sqlname: string;
  is_array: boolean;
  builtin: boolean;
}

interface AttributeRow {
  attname: string;
  atttypid: number;
  atttypmod: number;
}

/**
 * PostgreSQL's names of the built-in types that the established dialect also has → that dialect's
 * names, which its clients switch on (the Python SDK picks a pandas dtype by them: DOUBLE, VARCHAR,
 * TIMESTAMP, DECIMAL, …). jsonb and json hold what the dialect calls VARIANT; its MAP<K,V> is a
 * domain of the scratch database that names K and V (map-types.ts).
 * The other types keep PostgreSQL's name in upper case.
 */
const ESTABLISHED_NAMES: Record<string, string> = {
  'double precision': 'DOUBLE',
  numeric: 'DECIMAL',
  text: 'VARCHAR',
  'character varying': 'VARCHAR',
  character: 'CHAR',
  'timestamp without time zone': 'TIMESTAMP',
  'time without time zone': 'TIME',
  bytea: 'VARBINARY',
  jsonb: 'VARIANT',
  json: 'VARIANT',
};

const VARLEN_WITH_HEADER = new Set(['character varying', 'character', 'bit', 'bit varying']);
const TIME_PRECISION = /^(time|timestamp|interval)/;

/** `precision`/`scale` from a type modifier (-1: none), as Postgres' own format_type reads it. */
export function modifiers(sqlname: string, typmod: number): Pick<ColumnType, 'precision' | 'scale'> {
  if (typmod < 0) return {};
  if (sqlname === 'numeric') return { precision: ((typmod - 4) >> 16) & 0xffff, scale: (typmod - 4) & 0xffff };
  if (sqlname === 'character varying' || sqlname === 'character') return { precision: typmod - 4 };
  if (VARLEN_WITH_HEADER.has(sqlname)) return { precision: typmod };
  if (TIME_PRECISION.test(sqlname)) return { precision: typmod & 0xffff };
  return {};
}

export class TypeResolver {
  private readonly types = new Map<number, TypeRow>();

  constructor(private readonly q: Queryable) {}

  private async type(oid: number): Promise<TypeRow> {
    const cached = this.types.get(oid);
    if (cached) return cached;
    const [row] = await this.q.query<TypeRow>(
      `SELECT typtype, typelem::int AS typelem, typrelid::int AS typrelid, typbasetype::int AS typbasetype,
              typtypmod, typnotnull, format_type(oid, NULL) AS sqlname,
              typsubscript = 'array_subscript_handler'::regproc AS is_array,
              typnamespace = 'pg_catalog'::regnamespace AS builtin
         FROM pg_type WHERE oid = $1`,
      [oid],
    );
    if (!row) throw new Error(`type ${oid} is not in the catalog`);
    this.types.set(oid, row);
    return row;
  }

  async columnType(oid: number, typmod: number, nullable: boolean): Promise<ColumnType> {
    const t = await this.type(oid);
    const map = t.typtype === 'd' ? MAP_DOMAIN.exec(t.sqlname) : null;
    if (map?.[1]) return this.mapType(map[1], nullable);
    if (t.typtype === 'd')
      return this.columnType(t.typbasetype, typmod >= 0 ? typmod : t.typtypmod, nullable && !t.typnotnull);
    if (t.is_array && t.typelem !== 0)
      // Postgres array elements are always nullable.
      return { type: 'ARRAY', nullable, component: await this.columnType(t.typelem, typmod, true) };
    if (t.typtype === 'c') return { type: 'STRUCT', nullable, fields: await this.fields(t.typrelid) };
    // Built-in types by the established name or their SQL name in upper case; user types (enums,
    // ranges) keep theirs.
    const type = t.builtin ? (ESTABLISHED_NAMES[t.sqlname] ?? t.sqlname.toUpperCase()) : t.sqlname;
    return { type, nullable, ...modifiers(t.sqlname, typmod) };
  }

  /** A MAP of the scratch database (map-types.ts): its key (never NULL) and value types. */
  private async mapType(id: string, nullable: boolean): Promise<ColumnType> {
    const [row] = await this.q.query<{ relid: number }>('SELECT $1::regclass::oid::int AS relid', [kvTable(id)]);
    const [key, value] = row ? await this.fields(row.relid) : [];
    if (!key || !value) return { type: 'VARIANT', nullable };
    return { type: 'MAP', nullable, key: { ...key.columntype, nullable: false }, value: value.columntype };
  }

  /** Fields of a composite type (attributes of a composite are always nullable). */
  private async fields(relid: number): Promise<Field[]> {
    const attributes = await this.q.query<AttributeRow>(
      `SELECT attname, atttypid::int AS atttypid, atttypmod FROM pg_attribute
        WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      [relid],
    );
    const fields: Field[] = [];
    for (const a of attributes)
      fields.push({
        name: a.attname,
        case_sensitive: caseSensitive(a.attname),
        columntype: await this.columnType(a.atttypid, a.atttypmod, true),
        unused: false,
      });
    return fields;
  }
}

/** An identifier is case-sensitive when folding it to lower case would change it (it was quoted). */
export const caseSensitive = (name: string): boolean => name !== name.toLowerCase();
