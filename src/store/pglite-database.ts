import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';

/**
 * The embedded default: real Postgres compiled to WebAssembly, in this process, with its data in
 * a directory (or in memory when `dataDir` is undefined). PGlite serialises queries and
 * transactions itself, so concurrent callers are safe.
 */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);

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
    close: () => db.close(),
  };
}
