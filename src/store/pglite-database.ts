import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { createInMemory, type InMemoryOptions, settingParams } from '../pglite/initdb-dump.js';
import { walStartParams } from './pglite-wal-size.js';
import { shippedEngineDump } from '../pglite/shipped-dump.js';
import { extractTar, TarError } from '../pglite/tar.js';

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
    db = dataDir
      ? await openDataDir(dataDir, options.initdbDump ?? shippedEngineDump())
      : await createInMemory(options.initdbDump, { ...options, settings: { ...STORE_SETTINGS, ...options.settings } });
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

/**
 * PostgreSQL's default 128 MiB of shared_buffers, which it touches at start, for a database of a
 * few MiB of records: measured on an existing data dir, 304 MiB of RSS for a process holding
 * only the database, 182 MiB with 16 MiB. The files are in the OS's page cache besides.
 */
const STORE_SETTINGS = { shared_buffers: '16MB' };

/**
 * A PGlite on disk, its WAL kept small (src/store/pglite-wal-size.ts). A new data dir is unpacked
 * from an initdb dump when there is one (the engine's, which the build ships): PGlite's own
 * initdb runs a second instance in the process, and the RSS it takes stays for the process's
 * life (measured: 605 MiB after the first start on a new data dir, 181 MiB from the dump). The
 * dump is the slim kind (1 MiB WAL segments, as a new data dir gets anyway; no template
 * databases, which nothing here uses).
 */
async function openDataDir(dataDir: string, dump: string | undefined): Promise<PGlite> {
  if (dump && !existsSync(join(dataDir, 'PG_VERSION'))) await unpackDump(dataDir, dump);
  const wal = await walStartParams(dataDir);
  return PGlite.create({
    dataDir,
    initDbStartParams: wal.initDbStartParams,
    startParams: [...PGlite.defaultStartParams, ...wal.settings, ...settingParams(STORE_SETTINGS)],
  });
}

/**
 * PG_VERSION last: PGlite takes a data dir holding it for a complete one, so a start stopped half
 * way unpacks again next time. A dump it cannot read leaves the directory to PGlite's initdb.
 */
async function unpackDump(dataDir: string, dump: string): Promise<void> {
  const bytes = await readFile(dump).catch(() => undefined);
  if (!bytes) return;
  try {
    await extractTar(bytes, dataDir, 'PG_VERSION');
  } catch (error) {
    if (!(error instanceof TarError)) throw error;
  }
}
