import type { PGlite } from '@electric-sql/pglite';
import type { Relation } from './catalog.js';
import { quote } from './sql.js';

// The engine's PGlite runs PostgreSQL as one backend in the process's memory: no autovacuum, no
// checkpointer, and its files, WAL included, are memory. Left alone, a pipeline with steady input
// grew without end even when its data did not (measured: ~180 KiB of WAL and ~26 KiB of dead
// catalog and state rows a step; RSS +100 MiB every 500 steps). So the tables write no WAL (crash
// recovery would never read it: a restart loads a checkpoint of the engine's own, not the
// database's files), and every so many steps the engine vacuums and checkpoints, which recycles
// what WAL the catalog still writes.

/** Steps between two rounds of VACUUM and CHECKPOINT. */
export const HOUSEKEEPING_STEPS = 100;

/**
 * Server settings: at most 32 MiB of recycled WAL, not PostgreSQL's default 80 (the least a dump
 * with 16 MiB segments accepts: min_wal_size must be two segments, or the database will not start).
 */
export const WAL_SETTINGS = { min_wal_size: '32MB', full_page_writes: 'off' };

/**
 * The program's tables, made unlogged. A table can turn unlogged only once the tables that reference
 * it by foreign key are: each pass takes those it can; what is left stays logged (only more WAL).
 */
export async function unlogTables(db: Pick<PGlite, 'exec'>, catalog: readonly Relation[]): Promise<void> {
  let left = catalog.filter((r) => r.kind === 'table');
  while (left.length > 0) {
    const failed: Relation[] = [];
    for (const table of left) {
      try {
        await db.exec(`ALTER TABLE public.${quote(table.name)} SET UNLOGGED`);
      } catch {
        failed.push(table);
      }
    }
    if (failed.length === left.length) return;
    left = failed;
  }
}

/** One round: dead rows reclaimed (catalogs and state included), then old WAL recycled. */
export async function houseKeep(db: Pick<PGlite, 'exec'>): Promise<void> {
  await db.exec('VACUUM');
  await db.exec('CHECKPOINT');
}
