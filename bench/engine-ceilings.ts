import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createInMemory } from '../src/pglite/initdb-dump.js';
import { startPostgres, stopPostgres } from '../test/support/postgres.js';

// bench:engine's ceilings, measured in the same run as the engines: COPY of the same rows into plain
// PostgreSQL and into PGlite, and the floor of any engine PGlite evaluates. See bench/README.md.

/** COPY of the same rows, from a CSV file the server reads itself, into a plain table. */
export async function copyCeiling(csv: string, records: number) {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-copy-'));
  chmodSync(dir, 0o755);
  try {
    const file = join(dir, 'orders.csv');
    writeFileSync(file, csv, { mode: 0o644 });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL)',
      );
      const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
      const t0 = performance.now();
      await client.query(`COPY orders FROM '${file}' (FORMAT csv)`);
      const seconds = (performance.now() - t0) / 1000;
      return { seconds, recordsPerS: records / seconds, version: version ?? 'unknown' };
    } finally {
      await client.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    stopPostgres(server);
  }
}

/** COPY of the same rows into a plain table of PGlite, the evaluator itself (same settings as the engine's). */
export async function pgliteCopyCeiling(csv: string, records: number) {
  const db = await createInMemory(undefined, { settings: { shared_buffers: '16MB' }, slim: true });
  try {
    await db.exec(
      'CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL)',
    );
    const blob = new Blob([csv]);
    const t0 = performance.now();
    await db.query(`COPY orders FROM '/dev/blob' (FORMAT csv)`, [], { blob });
    return records / ((performance.now() - t0) / 1000);
  } finally {
    await db.close();
  }
}

/**
 * The least a PGlite-evaluated engine does with a batch before any view: COPY it into a staging table
 * (so that a bad record rejects nothing else, and a step applies all tables at once), move it into
 * the table, empty the staging table. No view is maintained; every view reads the batch at least once
 * more. Batches as the engine gets them, in PGlite with the engine's settings.
 */
export async function pgliteFloor(csv: string, records: number, batch: number) {
  const db = await createInMemory(undefined, { settings: { shared_buffers: '16MB' }, slim: true });
  try {
    const columns = 'id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL';
    await db.exec(`CREATE TABLE orders (${columns}); CREATE UNLOGGED TABLE stage (${columns});`);
    const lines = csv.split('\n');
    const blobs: Blob[] = [];
    for (let from = 0; from < records; from += batch)
      blobs.push(new Blob([`${lines.slice(from, Math.min(from + batch, records)).join('\n')}\n`]));
    const t0 = performance.now();
    for (const blob of blobs) {
      await db.query(`COPY stage FROM '/dev/blob' (FORMAT csv)`, [], { blob });
      await db.exec('INSERT INTO orders SELECT * FROM stage; TRUNCATE stage;');
    }
    return records / ((performance.now() - t0) / 1000);
  } finally {
    await db.close();
  }
}
