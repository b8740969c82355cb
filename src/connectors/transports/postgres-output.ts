// postgres_output: applies each batch of a view's changes to a table, in one transaction. `insert`
// mode inserts the inserted rows and deletes one matching row per deleted row; `upsert` mode deletes
// by `key` and then inserts with ON CONFLICT (key) DO UPDATE, so an update (a delete and an insert
// of the same key in one step) ends as the new row. Rows go in through json_populate_recordset, so
// PostgreSQL converts every value to the target column's type. A failure rolls the batch back and
// rejects; the endpoint sends it again after a back-off, on a new connection.
import { quote } from '../../engine/sql.js';
import pg from 'pg';
import type { Change, Row } from '../../engine/types.js';
import type { OutputTransport } from '../output-endpoint.js';

interface Config {
  uri: string;
  table: string;
  mode: 'insert' | 'upsert';
  key?: string[] | undefined;
}

/** `schema.table` or `table`, each part quoted as written (the user names an existing table). */
const tableName = (name: string): string => name.split('.').map(quote).join('.');

function expand(changes: readonly Change[], sign: 1 | -1): Row[] {
  return changes.filter((c) => Math.sign(c.weight) === sign).flatMap((c) => Array<Row>(Math.abs(c.weight)).fill(c.row));
}

async function apply(client: pg.Client, config: Config, changes: readonly Change[]): Promise<void> {
  const t = tableName(config.table);
  const inserts = expand(changes, 1);
  const deletes = expand(changes, -1);
  const columns = Object.keys(changes[0]?.row ?? {}).map(quote);
  const source = `json_populate_recordset(NULL::${t}, $1::json) AS d`;
  if (config.mode === 'upsert' && config.key) {
    const keys = config.key.map(quote);
    if (deletes.length > 0)
      await client.query(
        `DELETE FROM ${t} AS t USING ${source} WHERE ${keys.map((k) => `t.${k} = d.${k}`).join(' AND ')}`,
        [JSON.stringify(deletes)],
      );
    if (inserts.length > 0) {
      const rest = columns.filter((c) => !keys.includes(c));
      const update = rest.length === 0 ? 'NOTHING' : `UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
      await client.query(
        `INSERT INTO ${t} (${columns.join(', ')}) SELECT ${columns.map((c) => `d.${c}`).join(', ')} FROM ${source} ON CONFLICT (${keys.join(', ')}) DO ${update}`,
        [JSON.stringify(inserts)],
      );
    }
    return;
  }
  const same = columns.map((c) => `t.${c} IS NOT DISTINCT FROM d.${c}`).join(' AND ');
  for (const row of deletes)
    await client.query(
      `DELETE FROM ${t} WHERE ctid = (SELECT t.ctid FROM ${t} AS t, json_populate_record(NULL::${t}, $1::json) AS d WHERE ${same} LIMIT 1)`,
      [JSON.stringify(row)],
    );
  if (inserts.length > 0)
    await client.query(
      `INSERT INTO ${t} (${columns.join(', ')}) SELECT ${columns.map((c) => `d.${c}`).join(', ')} FROM ${source}`,
      [JSON.stringify(inserts)],
    );
}

export function postgresOutput(config: Config): OutputTransport {
  let client: pg.Client | undefined;
  const drop = async () => {
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
  return {
    async send(batch) {
      if (!client) {
        const fresh = new pg.Client({ connectionString: config.uri });
        fresh.on('error', () => undefined); // a dropped connection rejects the next query
        await fresh.connect().catch(async (error: unknown) => {
          await fresh.end().catch(() => undefined);
          throw error;
        });
        client = fresh;
      }
      try {
        await client.query('BEGIN');
        await apply(client, config, batch.changes);
        await client.query('COMMIT');
      } catch (error) {
        await drop();
        throw error;
      }
      return Buffer.byteLength(JSON.stringify(batch.changes));
    },
    close: drop,
  };
}
