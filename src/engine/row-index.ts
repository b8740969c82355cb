import { createHash } from 'node:crypto';
import type { Tx } from '../pglite/lazy-transaction.js';
import { columnList, inSchema, quote } from './sql.js';

// Finding the copies of given rows in a multiset (a table without a primary key, a view's state):
// rows compare by their text form. Without an index that is a scan of the whole relation for every
// step that deletes, a cost that follows the data, not the change. So the first delete of a
// relation gives it an index on a hash of each row's text (made then, not at load: an insert-only
// relation never pays for its upkeep), and the search looks rows up by that hash.

const KEYS = 'svc_key';

/** The hash function of one relation's rows (its row type is its argument). */
const keyFunction = (schema: string, name: string): string => inSchema(KEYS, `${schema}.${name}`);

const indexName = (schema: string, name: string): string =>
  `svc_rowkey_${createHash('sha256').update(`${schema}.${name}`).digest('hex').slice(0, 16)}`;

/**
 * Makes the relation's row-hash index if it has none yet. The function is declared IMMUTABLE, which
 * a row's text is only while the settings it depends on (TimeZone, DateStyle…) stay as they are:
 * the engine never changes them, and a restore builds the index again from the rows.
 */
export async function ensureRowIndex(tx: Tx, schema: string, name: string) {
  const index = indexName(schema, name);
  const [found] = (
    await tx.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [inSchema(schema, index)])
  ).rows;
  if (found?.ok) return;
  const relation = inSchema(schema, name);
  await tx.exec(`
    CREATE SCHEMA IF NOT EXISTS ${KEYS};
    CREATE OR REPLACE FUNCTION ${keyFunction(schema, name)}(${relation}) RETURNS int
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT hashtext($1::text) $$;
    CREATE INDEX ${quote(index)} ON ${relation} (${keyFunction(schema, name)}(${quote(name)}));`);
}

/**
 * The ctids of up to `n` copies of each row of `source` (columns of the relation, and `svc_n`) in the
 * relation, looked up by the row-hash index (ensureRowIndex first), compared by text.
 */
export function copiesSql(schema: string, name: string, source: string, columns: readonly { name: string }[]): string {
  const relation = inSchema(schema, name);
  const key = keyFunction(schema, name);
  const wanted = `(ROW(${columnList(columns, 'd.')})::${relation})`;
  return `SELECT x.ctid FROM (
            SELECT svc_r.ctid, d.svc_n, row_number() OVER (PARTITION BY svc_r::text) AS svc_rn
              FROM ${source} d JOIN ${relation} svc_r
                ON ${key}(svc_r) = ${key}(${wanted}) AND svc_r::text = ${wanted}::text
          ) x WHERE x.svc_rn <= x.svc_n`;
}
