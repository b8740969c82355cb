import { readdir, readFile } from 'node:fs/promises';
import type { Database } from './database.js';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const FILE_PATTERN = /^(\d{3})_[a-z0-9_]+\.sql$/;
/** Any constant works; it only has to be the same for every svc process sharing the database. */
const MIGRATION_LOCK_KEY = 7_310_042_517;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => FILE_PATTERN.test(f)).sort();
  return Promise.all(
    files.map(async (name) => ({
      version: Number(FILE_PATTERN.exec(name)?.[1]),
      name,
      sql: await readFile(new URL(name, MIGRATIONS_DIR), 'utf8'),
    })),
  );
}

/**
 * Applies the numbered SQL files not yet recorded, all in one transaction behind an advisory lock,
 * so two processes starting at once neither race nor apply a file twice. Returns the names applied.
 */
export async function migrate(db: Database): Promise<string[]> {
  const migrations = await loadMigrations();
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
    const done = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM schema_migration')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migration (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.name);
    }
    return applied;
  });
}
