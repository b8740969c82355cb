// postgres_input: runs the query once and ingests its rows, then reports end of input. Values are
// read as PostgreSQL's text output (every type parser returns the text), which the engine's input
// conversion reads back exactly. A connection or query failure rejects: the endpoint retries.
import pg from 'pg';
import type { Row } from '../../engine/types.js';
import type { InputRun } from '../input-endpoint.js';

const BATCH = 10_000;
const asText = { getTypeParser: () => (value: string) => value };

export function postgresInput(config: { uri: string; query: string }): InputRun {
  return async (sink) => {
    const client = new pg.Client({ connectionString: config.uri, types: asText });
    client.on('error', () => undefined); // a dropped connection rejects the query below
    await client.connect();
    try {
      const result = await client.query<Row>({ text: config.query, types: asText });
      for (let i = 0; i < result.rows.length; i += BATCH) {
        await sink.ready();
        const rows = result.rows.slice(i, i + BATCH);
        await sink.pushChanges(
          rows.map((row) => ({ weight: 1, row })),
          Buffer.byteLength(JSON.stringify(rows)),
        );
      }
      sink.endOfInput();
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}
