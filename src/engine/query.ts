import type { PGlite, Transaction } from '@electric-sql/pglite';
import { parseSync } from 'libpg-query';
import { SvcError } from '../model/errors.js';
import { STATE } from './sql.js';
import type { QueryResult, Row } from './types.js';
import { parseExact } from '../model/exact-json.js';

// Ad-hoc queries (GET /query): one SELECT, read-only, as of the last completed step. Views resolve
// to their kept state (schema svc_state first on the search path), so a query reads what the last
// step produced instead of evaluating the view again. Errors are 400 bodies with PostgreSQL's
// message and the position in the caller's text.

/** Rows read from the cursor at a time: the pool is checked after each batch. */
const FETCH_ROWS = 1_000;

const exhausted = (poolBytes: number, readBytes: number): SvcError =>
  new SvcError(
    400,
    'ResourcesExhausted',
    `the query's result outgrew the ad-hoc query memory pool (${poolBytes} bytes; read ${readBytes} bytes so far): raise runtime_config.datafusion_memory_mb or narrow the query`,
    { field: 'runtime_config.datafusion_memory_mb', pool_bytes: poolBytes, read_bytes: readBytes },
  );

/**
 * The result through a cursor, a batch at a time, each row as JSON text: what the query holds is
 * counted as it grows, and a result past `poolBytes` stops at the batch that crossed it instead of
 * being built whole first.
 */
async function fetchWithin(tx: Transaction, sql: string, poolBytes: number | undefined): Promise<Row[]> {
  await tx.query(
    `DECLARE __svc_c NO SCROLL CURSOR FOR SELECT row_to_json(__svc_q)::text AS r FROM (\n${sql}\n) __svc_q`,
  );
  const rows: Row[] = [];
  let bytes = 0;
  for (;;) {
    const batch = (await tx.query<{ r: string }>(`FETCH ${FETCH_ROWS} FROM __svc_c`)).rows;
    for (const { r } of batch) {
      bytes += r.length;
      rows.push(parseExact(r) as Row);
    }
    if (poolBytes !== undefined && bytes > poolBytes) throw exhausted(poolBytes, bytes);
    if (batch.length < FETCH_ROWS) return rows;
  }
}

const badSql = (message: string, details: Record<string, string | number> = {}): SvcError =>
  new SvcError(400, 'InvalidSqlQuery', message, details);

type Node = Record<string, unknown>;
function* rangeVars(x: unknown): Generator<Node> {
  if (Array.isArray(x)) for (const y of x) yield* rangeVars(y);
  else if (typeof x === 'object' && x !== null)
    for (const [k, v] of Object.entries(x)) {
      if (k === 'RangeVar') yield v as Node;
      yield* rangeVars(v);
    }
}

/**
 * Checks with PostgreSQL's parser that the text is exactly one SELECT (or VALUES / TABLE), and
 * returns the relation names it reads (unqualified or in `public`).
 */
function checkSelect(sql: string): string[] {
  let parsed: { stmts?: { stmt?: Record<string, unknown> }[] };
  try {
    parsed = parseSync(sql) as typeof parsed;
  } catch (error) {
    const e = error as Error & { cursorPosition?: number };
    throw badSql(
      `SQL syntax error: ${e.message}`,
      e.cursorPosition === undefined ? {} : { position: e.cursorPosition },
    );
  }
  const stmts = parsed.stmts ?? [];
  if (stmts.length !== 1) throw badSql(`expected exactly one SQL statement, got ${stmts.length}`);
  const kind = Object.keys(stmts[0]?.stmt ?? {})[0];
  if (kind !== 'SelectStmt') throw badSql(`only SELECT queries are supported, got ${kind ?? 'nothing'}`);
  return [...rangeVars(parsed)]
    .filter((r) => r['schemaname'] === undefined || r['schemaname'] === 'public')
    .map((r) => String(r['relname']));
}

/**
 * `queryable` says whether a relation of the program may be read ad hoc (materialized ones only);
 * undefined for a name that is not the program's (then PostgreSQL answers for it).
 */
export async function adHocQuery(
  db: PGlite,
  text: string,
  queryable: (name: string) => boolean | undefined,
  poolBytes?: number,
): Promise<QueryResult> {
  const sql = text.trim().replace(/;\s*$/, '');
  for (const name of checkSelect(sql))
    if (queryable(name) === false)
      throw badSql(`${name} is not materialized: only materialized tables and views can be queried`, {
        relation: name,
      });
  const prefix = 'SELECT * FROM (\n';
  const wrapped = `${prefix}${sql}\n) __svc_q`;
  try {
    return await db.transaction(async (tx) => {
      await tx.exec(`SET TRANSACTION READ ONLY; SET LOCAL search_path = ${STATE}, public, pg_catalog;`);
      const shape = await tx.query(`${wrapped} LIMIT 0`);
      const ids = [...new Set(shape.fields.map((f) => f.dataTypeID))];
      const names = await tx.query<{ oid: number; name: string }>(
        `SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])`,
        [ids],
      );
      const typeOf = new Map(names.rows.map((r) => [r.oid, r.name]));
      const rows = await fetchWithin(tx, sql, poolBytes);
      return {
        columns: shape.fields.map((f) => ({
          name: f.name,
          type: typeOf.get(f.dataTypeID) ?? 'unknown',
          nullable: true,
        })),
        rows,
      };
    });
  } catch (error) {
    const e = error as Error & { position?: string; code?: string };
    if (e.code === undefined || error instanceof SvcError) throw error;
    const at = e.position === undefined ? undefined : Number(e.position) - prefix.length;
    throw badSql(e.message, { sqlstate: e.code, ...(at !== undefined && at > 0 && { position: at }) });
  }
}
