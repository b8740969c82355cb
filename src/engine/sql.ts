// SQL text helpers shared by the engine's modules. Relations keep the catalog's spelling; every name
// the engine writes is quoted, so a program's "Quoted" names and odd characters survive.

export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Schemas the engine keeps beside the program's `public`: staged input, per-step deltas, view state. */
export const STAGE = 'svc_in';
export const DELTA = 'svc_delta';
export const STATE = 'svc_state';
/**
 * Scratch tables, one per view that needs one, made when the program loads and emptied by each step.
 * Not temporary tables made per step: PostgreSQL never frees the catalog cache entries a relation
 * created and dropped leaves behind, and a step that made two grew the engine's memory by ~1.3 MiB
 * every 1,000 steps without bound (measured in CacheMemoryContext, pg_backend_memory_contexts).
 */
export const WORK = 'svc_work';

/** Weight column of staging and delta tables (a name no program column is expected to take). */
export const W = '__svc_w';
/** Arrival order of staged changes (for tables with a primary key, the last change of a key wins). */
export const ORD = '__svc_ord';

/** Inserts the rows of a JSON array (`$1`) into `target`, each member into the column of its name. */
export const insertJsonSql = (target: string): string =>
  `INSERT INTO ${target} SELECT * FROM json_populate_recordset(NULL::${target}, $1::json)`;

export const inSchema = (schema: string, name: string): string => `${quote(schema)}.${quote(name)}`;
export const columnList = (columns: readonly { name: string }[], prefix = ''): string =>
  columns.map((c) => `${prefix}${quote(c.name)}`).join(', ');

/**
 * Replaces a delta table's rows by their consolidation (one row per distinct row, weights summed, zero
 * weights gone), in one statement and without a table of its own.
 */
export const consolidateSql = (delta: string, columns: readonly { name: string }[]): string => {
  const cols = columnList(columns);
  return `WITH svc_all AS (DELETE FROM ${delta} RETURNING *)
    INSERT INTO ${delta} SELECT ${cols}, sum(${W}) FROM svc_all GROUP BY ${cols} HAVING sum(${W}) <> 0;`;
};
