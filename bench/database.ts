import pg from 'pg';
import { startPostgres, stopPostgres } from '../test/support/postgres.js';

// The PostgreSQL the benchmark runs against: the server named by SVC_BENCH_DATABASE_URL, or a
// throw-away one from the machine's binaries. Either way the bench makes its own database in it,
// so a shared server is never touched outside that database.

export interface BenchDatabase {
  /** URL of the bench's own database. */
  url: string;
  /** Where it runs, for the report (never a password). */
  where: string;
  serverVersion: string;
  /** Drops the database and stops a server started here; safe to call once. */
  dispose(): Promise<void>;
}

/** A short-lived connection: closing it makes its backend flush its statistics at once. */
export const withClient = async <T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
};

export async function provideDatabase(): Promise<BenchDatabase> {
  const given = process.env['SVC_BENCH_DATABASE_URL'];
  const started = given ? undefined : await startPostgres();
  const adminUrl = given ?? started?.url ?? '';
  const name = `svc_bench_${Date.now()}`;
  try {
    const serverVersion = await withClient(adminUrl, async (c) => {
      await c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      const r = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      return r.rows[0]?.v ?? 'unknown';
    });
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      where: `${given ? 'SVC_BENCH_DATABASE_URL' : 'throw-away server'} ${url.hostname}:${url.port}/${name}`,
      serverVersion,
      async dispose() {
        if (started) {
          // The whole server goes, with its data directory: no need to drop anything first.
          stopPostgres(started);
          return;
        }
        await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
      },
    };
  } catch (error) {
    if (started) stopPostgres(started);
    throw error;
  }
}
