import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { createInMemory } from '../../pglite/initdb-dump.js';
import { engineDump } from '../../pglite/shipped-dump.js';
import { isObject, type JsonValue } from '../../model/json.js';
import { parseExact } from '../../model/exact-json.js';
import { applyDelta } from '../apply.js';
import { copyable, copyRowsText, copyText } from '../copy-text.js';
import { adHocQuery } from '../query.js';
import { columnList, inSchema, quote, W } from '../sql.js';
import type { Change, ColumnInfo, RelationInfo, Row } from '../types.js';
import { Rpc } from './rpc.js';
import { collectWhenIdle } from '../../heap/idle-collection.js';

// The replica's thread: its own PGlite holding the program's materialized tables and views as
// plain tables, filled from the engine's contents once (seed) and then from each step's changes
// (apply), by COPY. Ad-hoc queries run here, as a role that may only read those tables: the
// engine's schemas, its other relations and its settings are not in this database at all.

export interface ReplicaWorkerData {
  initdbDump?: string;
  /** Every relation of the program: the materialized ones are kept, the others named in refusals. */
  relations: RelationInfo[];
  /** The program's types and functions: its tables' columns may be of those types. */
  definitions: string[];
  /** temp_file_limit: what a query's sorts and sets may spill (the pool's bound). */
  tempLimitKb?: number;
}

const READER = 'svc_reader';
const DEFINER = 'svc_definer';
const DELTAS = 'svc_replica_delta';

const port = parentPort;
if (!port) throw new Error('replica-worker.ts runs as a worker thread');
const rpc = new Rpc(port);
const data = workerData as ReplicaWorkerData;
collectWhenIdle();
const kept = new Map(data.relations.filter((r) => r.materialized).map((r) => [r.name, r]));

async function open(): Promise<PGlite> {
  const settings: Record<string, string> = { shared_buffers: '16MB' };
  if (data.tempLimitKb !== undefined) settings['temp_file_limit'] = `${Math.max(64, data.tempLimitKb)}kB`;
  // The engine's initdb dump (its own, or the one the build shipped): no initdb at the first query.
  const db = await createInMemory(data.initdbDump ?? engineDump(), { settings, slim: true });
  // The program's types and functions belong to a role of no privilege, so that a SECURITY DEFINER
  // function cannot lift a query above the reader. A body may read relations the replica does not
  // hold: not checked at creation.
  const setup = [
    'SET check_function_bodies = off',
    `CREATE ROLE ${DEFINER} NOLOGIN`,
    `GRANT CREATE ON SCHEMA public TO ${DEFINER}`,
    `SET ROLE ${DEFINER}`,
    ...data.definitions,
    'RESET ROLE',
    `REVOKE CREATE ON SCHEMA public FROM ${DEFINER}`,
    `CREATE ROLE ${READER} NOLOGIN`,
    `CREATE SCHEMA ${DELTAS}`,
  ];
  for (const r of kept.values()) {
    const cols = r.columns.map((c) => `${quote(c.name)} ${c.type}`).join(', ');
    setup.push(
      `CREATE TABLE public.${quote(r.name)} (${cols})`,
      `GRANT SELECT ON public.${quote(r.name)} TO ${READER}`,
      `CREATE TABLE ${inSchema(DELTAS, r.name)} AS SELECT *, 0::bigint AS ${W} FROM public.${quote(r.name)} WITH NO DATA`,
    );
  }
  await db.exec(setup.map((s) => `${s};`).join('\n'));
  return db;
}
const opening = open();
opening.catch(() => undefined); // answered by the first call

/** Rows into a table: by COPY where every column reads the same from CSV (copy-text.ts), else as JSON. */
async function copyIn(
  db: Pick<Transaction, 'query'>,
  table: string,
  columns: readonly ColumnInfo[],
  text: string | undefined,
  json: () => JsonValue[],
) {
  const cols = columnList(columns);
  if (text !== undefined) {
    await db.query(`COPY ${table} (${cols}) FROM '/dev/blob' (FORMAT csv)`, [], { blob: new Blob([text]) });
    return;
  }
  await db.query(
    `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${table}, $1::json)`,
    [JSON.stringify(json())],
  );
}

rpc.handle('ready', async () => {
  await opening;
});
rpc.handle('seed', async ({ name, rows }: { name: string; rows: string }) => {
  const r = kept.get(name);
  if (!r) return;
  const parsed = (parseExact(rows) as JsonValue[]).filter((v): v is Record<string, JsonValue> => isObject(v));
  if (parsed.length === 0) return;
  const db = await opening;
  const text = copyable(r.columns) ? copyRowsText(r.columns, parsed) : undefined;
  await copyIn(db, `public.${quote(r.name)}`, r.columns, text, () => parsed);
});
rpc.handle('apply', async (outputs: string) => {
  const changed = (parseExact(outputs) as [string, Change[]][]).filter(([name, c]) => kept.has(name) && c.length > 0);
  if (changed.length === 0) return;
  const db = await opening;
  await db.transaction(async (tx) => {
    for (const [name, changes] of changed) {
      const r = kept.get(name);
      if (!r) continue;
      const delta = inSchema(DELTAS, name);
      await tx.exec(`TRUNCATE ${delta}`);
      const text = copyable(r.columns) ? copyText(r.columns, changes) : undefined;
      const withWeight = [...r.columns, { name: W, type: 'bigint', nullable: false }];
      await copyIn(tx, delta, withWeight, text, () => changes.map((c) => ({ ...c.row, [W]: c.weight })));
      await applyDelta(tx, 'public', name, delta, r.columns);
    }
  });
});
rpc.handle(
  'query',
  async ({ id, sql, poolBytes, stream }: { id: number; sql: string; poolBytes?: number; stream: boolean }) => {
    const db = await opening;
    const queryable = (name: string) => data.relations.find((r) => r.name === name)?.materialized;
    const onRows = stream
      ? (rows: Row[], columns: ColumnInfo[]) => rpc.call<void>('rows', { id, rows: JSON.stringify(rows), columns })
      : undefined;
    const result = await adHocQuery(db, sql, queryable, {
      searchPath: 'public, pg_catalog',
      role: READER,
      poolBytes,
      onRows,
    });
    return { columns: result.columns, rows: JSON.stringify(result.rows) };
  },
);
rpc.handle('close', async () => (await opening).close());
