import type { Tx } from '../pglite/lazy-transaction.js';
import type { Database } from '../pglite/parking.js';
import { parseSync } from 'libpg-query';
import { SvcError } from '../model/errors.js';
import { STATE } from './sql.js';
import type { ColumnInfo, QueryResult, Row } from './types.js';
import { parseExact } from '../model/exact-json.js';

// Ad-hoc queries (GET /query): one SELECT, read-only, as of the last completed step. In the pipeline
// they run on a replica of the materialized relations (host/replica-worker.ts) as a role without
// superuser; in-process (tests) views resolve to their kept state (schema svc_state first on the
// search path). Either way the transaction is rolled back, so no setting a query makes survives it,
// and functions that change settings or run SQL text of their own are refused. Errors are 400
// bodies with PostgreSQL's message and the position in the caller's text.

/** Rows read from the cursor at a time: the pool is checked after each batch. */
const FETCH_ROWS = 1_000;

const exhausted = (poolBytes: number, readBytes: number): SvcError =>
  new SvcError(
    400,
    'ResourcesExhausted',
    `the query's result outgrew the ad-hoc query memory pool (${poolBytes} bytes; read ${readBytes} bytes so far): raise runtime_config.datafusion_memory_mb or narrow the query`,
    { field: 'runtime_config.datafusion_memory_mb', pool_bytes: poolBytes, read_bytes: readBytes },
  );

/** Where a query runs: its search path, the role it runs as, its memory pool, and its rows' reader. */
export interface QueryRun {
  searchPath: string;
  role?: string;
  poolBytes?: number;
  /** Takes the rows a batch at a time (a stream with backpressure): then the result holds none. */
  onRows?: (rows: Row[], columns: ColumnInfo[]) => Promise<void>;
  /** Writes what the query reads (`reads`: the relations it names) first, rolled back with it: native tables' rows into PGlite. */
  before?: (tx: Tx, reads: readonly NamedRelation[]) => Promise<void>;
}

/**
 * The result through a cursor, a batch at a time, each row as JSON text: what the query holds is
 * counted as it grows, and a result past `poolBytes` stops at the batch that crossed it instead of
 * being built whole first. Rows handed to `onRows` are held a batch at a time: a batch counts.
 */
async function fetchWithin(tx: Tx, sql: string, run: QueryRun, columns: ColumnInfo[]): Promise<Row[]> {
  await tx.query(
    `DECLARE __svc_c NO SCROLL CURSOR FOR SELECT row_to_json(__svc_q)::text AS r FROM (\n${sql}\n) __svc_q`,
  );
  const rows: Row[] = [];
  let bytes = 0;
  for (;;) {
    const batch = (await tx.query<{ r: string }>(`FETCH ${FETCH_ROWS} FROM __svc_c`)).rows;
    const parsed = batch.map(({ r }) => parseExact(r) as Row);
    // A stream holds one batch at a time, a buffered result all of them: either is what counts.
    if (run.onRows) bytes = 0;
    for (const { r } of batch) bytes += r.length;
    if (run.poolBytes !== undefined && bytes > run.poolBytes) throw exhausted(run.poolBytes, bytes);
    if (!run.onRows) rows.push(...parsed);
    else if (parsed.length > 0) await run.onRows(parsed, columns);
    if (batch.length < FETCH_ROWS) return rows;
  }
}

/**
 * Functions a query may not call: set_config changes a setting (or the role: PGlite's session user
 * is a superuser, so SET ROLE back is allowed), and these run SQL text that the check above never
 * sees. Compared by name, any schema.
 */
const REFUSED_FUNCTIONS = new Set([
  'set_config',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'ts_stat',
  'ts_rewrite',
]);

const badSql = (message: string, details: Record<string, string | number> = {}): SvcError =>
  new SvcError(400, 'InvalidSqlQuery', message, details);

type Node = Record<string, unknown>;
function* nodes(x: unknown, kind: string): Generator<Node> {
  if (Array.isArray(x)) for (const y of x) yield* nodes(y, kind);
  else if (typeof x === 'object' && x !== null)
    for (const [k, v] of Object.entries(x)) {
      if (k === kind) yield v as Node;
      yield* nodes(v, kind);
    }
}

const functionName = (call: Node): string => {
  const parts = (call['funcname'] as { String?: { sval?: string } }[] | undefined) ?? [];
  return String(parts[parts.length - 1]?.String?.sval ?? '').toLowerCase();
};

/** The relations of the program a query names (`qualified`: as `public.name`). */
export interface NamedRelation {
  name: string;
  qualified: boolean;
}

/**
 * Checks with PostgreSQL's parser that the text is exactly one SELECT (or VALUES / TABLE), and
 * returns the relations it reads (unqualified or in `public`).
 */
function checkSelect(sql: string): NamedRelation[] {
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
  for (const call of nodes(parsed, 'FuncCall')) {
    const name = functionName(call);
    if (REFUSED_FUNCTIONS.has(name))
      throw badSql(`${name}() is not allowed in an ad-hoc query: it changes settings or runs SQL of its own`, {
        function: name,
      });
  }
  return [...nodes(parsed, 'RangeVar')]
    .filter((r) => r['schemaname'] === undefined || r['schemaname'] === 'public')
    .map((r) => ({ name: String(r['relname']), qualified: r['schemaname'] !== undefined }));
}

/**
 * `queryable` says whether a relation of the program may be read ad hoc (materialized ones only);
 * undefined for a name that is not the program's (then PostgreSQL answers for it).
 */
export async function adHocQuery(
  db: Pick<Database, 'transaction'>,
  text: string,
  queryable: (name: string) => boolean | undefined,
  run: QueryRun,
): Promise<QueryResult> {
  const sql = text.trim().replace(/;\s*$/, '');
  const reads = checkSelect(sql);
  for (const { name } of reads)
    if (queryable(name) === false)
      throw badSql(`${name} is not materialized: only materialized tables and views can be queried`, {
        relation: name,
      });
  const prefix = 'SELECT * FROM (\n';
  const wrapped = `${prefix}${sql}\n) __svc_q`;
  try {
    return await db.transaction(async (tx) => {
      await run.before?.(tx, reads);
      const role = run.role === undefined ? '' : ` SET LOCAL ROLE ${run.role};`;
      await tx.exec(`SET TRANSACTION READ ONLY; SET LOCAL search_path = ${run.searchPath};${role}`);
      try {
        const shape = await tx.query(`${wrapped} LIMIT 0`);
        const ids = [...new Set(shape.fields.map((f) => f.dataTypeID))];
        const names = await tx.query<{ oid: number; name: string }>(
          `SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])`,
          [ids],
        );
        const typeOf = new Map(names.rows.map((r) => [r.oid, r.name]));
        const columns = shape.fields.map((f) => ({
          name: f.name,
          type: typeOf.get(f.dataTypeID) ?? 'unknown',
          nullable: true,
        }));
        return { columns, rows: await fetchWithin(tx, sql, run, columns) };
      } finally {
        // Whatever the query set (set_config(..., false) included) ends with it.
        await tx.rollback();
      }
    });
  } catch (error) {
    const e = error as Error & { position?: string; code?: string };
    if (e.code === undefined || error instanceof SvcError) throw error;
    // 53400 configuration_limit_exceeded: temp_file_limit, the pool's bound on what spills to disk.
    if (e.code === '53400' && run.poolBytes !== undefined) throw exhausted(run.poolBytes, run.poolBytes);
    const at = e.position === undefined ? undefined : Number(e.position) - prefix.length;
    throw badSql(e.message, { sqlstate: e.code, ...(at !== undefined && at > 0 && { position: at }) });
  }
}

/** The search path of an in-process query: views read their kept state first. */
export const IN_PROCESS_PATH = `${STATE}, public, pg_catalog`;

/** A relation's rows (`source`: its table or state), with `fill` run first in a transaction rolled back after. */
export async function readRows(db: Database, source: string, fill?: (tx: Tx) => Promise<void>): Promise<Row[]> {
  if (fill) await db.exec('BEGIN');
  try {
    if (fill) await fill(db);
    const [row] = (
      await db.query<{ rows: string }>(
        `SELECT coalesce(json_agg(__svc_row), '[]')::text AS rows FROM ${source} __svc_row`,
      )
    ).rows;
    return parseExact(row?.rows ?? '[]') as Row[];
  } finally {
    if (fill) await db.exec('ROLLBACK');
  }
}
