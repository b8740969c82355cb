import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { createInMemory, type InMemoryOptions } from '../pglite/initdb-dump.js';
import { walStartParams } from './pglite-wal-size.js';

/**
 * The embedded default: real Postgres compiled to WebAssembly, in this process, with its data in
 * a directory (or in memory when `dataDir` is undefined). PGlite serialises queries and
 * transactions itself, so concurrent callers are safe.
 */
export async function openPglite(
  dataDir: string | undefined,
  options: { initdbDump?: string } & InMemoryOptions = {},
): Promise<Database> {
  let unlock = async () => undefined as void;
  if (dataDir) {
    await mkdir(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  let db: PGlite;
  try {
    // In memory: from the initdb dump when one is given (src/pglite/initdb-dump.ts).
    db = dataDir ? await openDataDir(dataDir) : await createInMemory(options.initdbDump, options);
  } catch (error) {
    await unlock();
    throw error;
  }

  const asQueryable = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<R extends object>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query<R>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });

  return {
    kind: 'pglite',
    ...asQueryable(db),
    transaction: (fn) => db.transaction((tx) => fn(asQueryable(tx))),
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, onNotify);
      return () => unlisten();
    },
    async close() {
      await db.close();
      await unlock();
    },
  };
}

/** A PGlite on disk, its WAL kept small (src/store/pglite-wal-size.ts). */
async function openDataDir(dataDir: string): Promise<PGlite> {
  const wal = await walStartParams(dataDir);
  return PGlite.create({
    dataDir,
    initDbStartParams: wal.initDbStartParams,
    startParams: [...PGlite.defaultStartParams, ...wal.settings],
  });
}
