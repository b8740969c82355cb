import { join } from 'node:path';
import type { Database } from './database.js';
import { migrate } from './migrate.js';
import { connectPostgres } from './pg-database.js';
import { openPglite } from './pglite-database.js';

export interface OpenedDatabase {
  db: Database;
  /** Human-readable location for the logs (never the password). */
  where: string;
  applied: string[];
}

/** PostgreSQL when a URL is given, else the embedded PGlite under the data dir; migrated. */
export async function openDatabase(databaseUrl: string | undefined, dataDir: string): Promise<OpenedDatabase> {
  let db: Database;
  let where: string;
  if (databaseUrl) {
    db = connectPostgres(databaseUrl);
    const url = new URL(databaseUrl);
    where = `postgres://${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } else {
    const dir = join(dataDir, 'pgdata');
    db = await openPglite(dir);
    where = `embedded PGlite at ${dir}`;
  }
  try {
    return { db, where, applied: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
