import type { Queryable } from '../database.js';

// PGlite runs PostgreSQL as a single backend: no autovacuum worker and no checkpointer. Left alone,
// the tables the runner and compiler rewrite keep dead row versions, and pg_wal fills up to
// max_wal_size (1 GB) before a checkpoint recycles it. One round of `compact` does by hand what
// those background processes do on a server; PostgreSQL needs none of it.

/** A table bigger than this many times its live rows (and FULL_FLOOR_BYTES) is rewritten. */
export const FULL_FACTOR = 4;
/** Below this a table is never rewritten: plain VACUUM keeps a small table in check. */
export const FULL_FLOOR_BYTES = 1024 * 1024;

export const TABLES_SQL = `SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS total_bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname`;

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
export const liveBytesSql = (table: string): string =>
  `SELECT coalesce(sum(pg_column_size(t.*)), 0)::float8 AS live_bytes FROM ${ident(table)} t`;
export const vacuumFullSql = (table: string): string => `VACUUM FULL ${ident(table)}`;

/** Whether a table is bloated enough that rewriting it (VACUUM FULL) is worth its brief lock. */
export const needsRewrite = (totalBytes: number, liveBytes: number): boolean =>
  totalBytes > FULL_FLOOR_BYTES && totalBytes > FULL_FACTOR * liveBytes;

export interface CompactionReport {
  /** Tables rewritten by VACUUM FULL this round. */
  rewritten: string[];
  bytesBefore: number;
  bytesAfter: number;
}

const totalBytes = async (q: Queryable): Promise<Array<{ name: string; total_bytes: number }>> =>
  q.query<{ name: string; total_bytes: number }>(TABLES_SQL);

/**
 * One round: VACUUM everything, rewrite the bloated tables, then CHECKPOINT so old WAL is recycled.
 * Live sizes are summed only for tables past the floor: summing a row's size reads its TOASTed
 * values, which for the pipeline table means every program text, every minute.
 */
export async function compact(q: Queryable): Promise<CompactionReport> {
  await q.exec('VACUUM');
  const tables = await totalBytes(q);
  const rewritten: string[] = [];
  for (const table of tables) {
    if (table.total_bytes <= FULL_FLOOR_BYTES) continue;
    const [live] = await q.query<{ live_bytes: number }>(liveBytesSql(table.name));
    if (!needsRewrite(table.total_bytes, live?.live_bytes ?? 0)) continue;
    await q.exec(vacuumFullSql(table.name));
    rewritten.push(table.name);
  }
  await q.exec('CHECKPOINT');
  const sum = (rows: Array<{ total_bytes: number }>) => rows.reduce((n, r) => n + r.total_bytes, 0);
  const bytesBefore = sum(tables);
  return { rewritten, bytesBefore, bytesAfter: rewritten.length > 0 ? sum(await totalBytes(q)) : bytesBefore };
}
