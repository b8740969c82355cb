import type { Queryable } from './database.js';

/** The platform's pipeline key (migration 006): every pipeline token derives from it. */
export async function readPipelineKey(db: Queryable): Promise<string> {
  const rows = await db.query<{ value: string }>("SELECT value FROM platform_secret WHERE name = 'pipeline_key'");
  const value = rows[0]?.value;
  if (!value) throw new Error('platform_secret has no pipeline_key: the database was not migrated');
  return value;
}
