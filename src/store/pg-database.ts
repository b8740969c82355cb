import pg from 'pg';
import type { Database, Queryable } from './database.js';

/** PostgreSQL through a `pg` pool; LISTEN uses one dedicated connection, reconnected on loss. */
// bigint columns (the version counters) come back as numbers, as they do from PGlite; counters stay
// far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function connectPostgres(url: string, options: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types });
  // An idle client that loses its server emits 'error' on the pool; without a handler the process
  // would crash. The next query gets a fresh connection.
  pool.on('error', () => undefined);

  const asQueryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R extends object>(sql: string, params: readonly unknown[] = []) {
      const result = await client.query(sql, params as unknown[]);
      return result.rows as R[];
    },
    async exec(sql: string) {
      // No parameters: the simple query protocol, which runs several statements.
      await client.query(sql);
    },
  });

  return {
    kind: 'postgres',
    ...asQueryable(pool),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(asQueryable(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onNotify) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      client.on('notification', (msg) => {
        if (msg.channel === channel) onNotify(msg.payload ?? '');
      });
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.end().catch(() => undefined);
      };
    },
    async close() {
      await pool.end();
    },
  };
}
