import { join } from 'node:path';
import type { Logger } from '../logging/logger.js';
import type { Database } from './database.js';
import { maintainEmbedded } from './maintenance/loop.js';
import { migrate } from './migrate.js';
import { connectPostgres } from './pg-database.js';
import { openPglite } from './pglite-database.js';

export interface OpenedDatabase {
  db: Database;
  /** Human-readable location for the logs (never the password). */
  where: string;
  applied: string[];
}

/**
 * PostgreSQL when a URL is given, else the embedded PGlite under the data dir; migrated. PGlite is
 * compacted in the background (maintenance/) until it is closed: it has no autovacuum of its own.
 */
export async function openDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  log?: Pick<Logger, 'info' | 'warn'>,
): Promise<OpenedDatabase> {
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
    const applied = await migrate(db);
    if (log && db.kind === 'pglite') db = withMaintenance(db, log);
    return { db, where, applied };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

function withMaintenance(db: Database, log: Pick<Logger, 'info' | 'warn'>): Database {
  const stop = maintainEmbedded(db, log);
  return {
    ...db,
    async close() {
      await stop();
      await db.close();
    },
  };
}
