// postgres_input: runs the query once and ingests its rows, then reports end of input. Values are
// read as PostgreSQL's text output (every type parser returns the text), which the engine's input
// conversion reads back exactly. A connection or query failure rejects: the endpoint retries.
// Its position is the rows taken (`done` once all were): a resume after the query was read whole
// does not run it again; one in the middle of it runs it again and skips the rows taken (the same
// rows only if the query's order is fixed: ORDER BY).
import pg from 'pg';
import type { Row } from '../../engine/types.js';
import type { JsonValue } from '../../model/json.js';
import type { InputRun } from '../input-endpoint.js';
import { positionCount, positionDone } from './position.js';

const BATCH = 10_000;
const asText = { getTypeParser: () => (value: string) => value };

export function postgresInput(config: { uri: string; query: string }, resume?: JsonValue): InputRun {
  /** Rows of the query already taken; a re-run (after a failure or a resume) skips them. */
  let taken = positionCount(resume, 'rows') ?? 0;
  const done = positionDone(resume);
  return async (sink) => {
    if (done) return sink.endOfInput();
    const client = new pg.Client({ connectionString: config.uri, types: asText });
    client.on('error', () => undefined); // a dropped connection rejects the query below
    await client.connect();
    try {
      const result = await client.query<Row>({ text: config.query, types: asText });
      const all = result.rows;
      do {
        await sink.ready();
        const rows = all.slice(taken, taken + BATCH);
        const position = { rows: taken + rows.length, done: taken + rows.length >= all.length };
        await sink.pushChanges(
          rows.map((row) => ({ weight: 1, row })),
          rows.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(rows)),
          position,
        );
        taken = position.rows;
      } while (taken < all.length);
      sink.endOfInput();
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}
