import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Relation } from './catalog.js';
import { columnList, inSchema, ORD, quote, STAGE, W } from './sql.js';
import { copyable, copyText } from './copy-text.js';
import type { Change } from './types.js';
import { depthError, weightError } from './limits.js';

// Input waits for the next step in a staging table per input table (same columns, NOT NULL kept, no
// keys), so that PostgreSQL itself checks every value against the column's type exactly as the
// table will: what goes into staging is what the step can apply. A batch goes in with one INSERT;
// only when it fails are its records tried one by one (in PL/pgSQL subtransactions) to find the bad
// ones and the column each fails on, and the good ones still go in. Each record comes to that
// function as the text of its row (r) and of each value alone (v): PostgreSQL's json operators
// unescape every string of the text they read, so a "\u0000" in one value made reading any other
// value of the record fail, and the record's error named its first column.

type Queryable = Pick<PGlite | Transaction, 'query' | 'exec'>;

export const INGEST_SQL = `
  CREATE SCHEMA ${STAGE};
  CREATE FUNCTION ${STAGE}.insert_each(stage regclass, target regclass, batch json)
    RETURNS TABLE(idx int, message text) LANGUAGE plpgsql AS $$
  DECLARE
    e json; i int; col text; state text; msg text; detail text;
  BEGIN
    FOR e, i IN SELECT value, (ordinality - 1)::int FROM json_array_elements(batch) WITH ORDINALITY LOOP
      BEGIN
        EXECUTE format('INSERT INTO %s SELECT (json_populate_record(NULL::%s, ($1->>''r'')::json)).*, ($1->>''w'')::bigint',
                       stage, target) USING e;
      EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, col = COLUMN_NAME,
                                detail = PG_EXCEPTION_DETAIL;
        IF state <> '23502' THEN
          col := NULL;
          -- Which column: each value alone through the same conversion.
          FOR col IN SELECT a.attname FROM pg_attribute a
                      WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum LOOP
            BEGIN
              EXECUTE format('SELECT json_populate_record(NULL::%s, json_build_object(%L, ($1->''v''->>%L)::json))',
                             target, col, col) USING e;
            EXCEPTION WHEN others THEN
              GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
              EXIT;
            END;
            col := NULL;
          END LOOP;
        END IF;
        idx := i;
        -- The detail says what the message does not (which limit, which escape); a NOT NULL's
        -- would only repeat the row.
        IF state <> '23502' AND coalesce(detail, '') <> '' THEN msg := format('%s (%s)', msg, detail); END IF;
        message := CASE WHEN col IS NULL THEN msg ELSE format('column %s: %s', col, msg) END;
        RETURN NEXT;
      END;
    END LOOP;
  END $$;
`;

export function stagingSql(table: Relation): string {
  const stage = inSchema(STAGE, table.name);
  return `CREATE UNLOGGED TABLE ${stage} (LIKE public.${quote(table.name)});
    ALTER TABLE ${stage} ADD COLUMN ${W} bigint NOT NULL, ADD COLUMN ${ORD} bigserial;`;
}

export interface Checked {
  accepted: number;
  errors: { index: number; message: string }[];
}

/** Checks what JSON alone can tell; the rest (types, NOT NULL) PostgreSQL checks on insert. */
export function shapeError(change: Change): string | undefined {
  const weight = weightError(change.weight);
  if (weight !== undefined) return weight;
  if (typeof change.row !== 'object' || change.row === null || Array.isArray(change.row))
    return 'a record must be a JSON object';
  // Connectors' records come here without the ingress decoder's checks.
  return depthError(change.row);
}

/** The whole batch in one statement; it fails as a whole if one record does not fit. */
export async function stageBatch(
  db: Queryable,
  table: Relation,
  batch: readonly Change[],
  json = false,
): Promise<void> {
  const stageName = inSchema(STAGE, table.name);
  if (!json && copyable(table.columns)) {
    await db.query(`COPY ${stageName} (${columnList(table.columns)}, ${W}) FROM '/dev/blob' (FORMAT csv)`, [], {
      blob: new Blob([copyText(table.columns, batch, true)]),
    });
    return;
  }
  // One recordset conversion for the batch (measured: a third of the time of a record each); the
  // weight rides in each object under the staging table's weight column.
  await db.query(
    `INSERT INTO ${stageName} (${columnList(table.columns)}, ${W})
       SELECT ${columnList(table.columns)}, ${W} FROM json_populate_recordset(NULL::${stageName}, $1::json)`,
    [JSON.stringify(batch.map((b) => ({ ...b.row, [W]: b.weight })))],
  );
}

/** Each value of the row as its JSON text. */
const texts = (row: Change['row']): Record<string, string> =>
  Object.fromEntries(Object.entries(row).map(([name, value]) => [name, JSON.stringify(value)]));

export async function stage(db: Queryable, table: Relation, changes: readonly Change[]): Promise<Checked> {
  const errors: Checked['errors'] = [];
  const batch: Change[] = [];
  const indexOf: number[] = [];
  changes.forEach((change, index) => {
    const problem = shapeError(change);
    if (problem) errors.push({ index, message: problem });
    else {
      batch.push(change);
      indexOf.push(index);
    }
  });
  if (batch.length === 0) return { accepted: 0, errors };
  const stageName = inSchema(STAGE, table.name);
  const target = `public.${quote(table.name)}`;
  try {
    await stageBatch(db, table, batch);
    return { accepted: batch.length, errors };
  } catch {
    const bad = await db.query<{ idx: number; message: string }>(
      `SELECT idx, message FROM ${STAGE}.insert_each($1::regclass, $2::regclass, $3::json)`,
      [
        stageName,
        target,
        JSON.stringify(batch.map((b) => ({ w: b.weight, r: JSON.stringify(b.row), v: texts(b.row) }))),
      ],
    );
    for (const b of bad.rows) errors.push({ index: indexOf[b.idx] ?? b.idx, message: b.message });
    errors.sort((a, b) => a.index - b.index);
    return { accepted: batch.length - bad.rows.length, errors };
  }
}
