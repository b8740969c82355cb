// GET /query?sql=&format=: an ad-hoc SELECT over materialized relations as of the last completed step.
// text: an ASCII table; json: one object a line; hash: one SHA-256 line of the sorted result.
// arrow_ipc: an Arrow IPC stream (apache-arrow); parquet: one Parquet file (hyparquet-writer).
// Queries run on the engine's replica (src/engine/host/replica.ts), with the pool and time limit of
// the settings; a client that leaves stops its query. json streams its rows as they are read, at the
// client's pace; the other formats need the whole result and count it against the pool.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { QueryOptions } from '../../engine/host/replica.js';
import type { QueryResult, Row } from '../../engine/types.js';
import { toArrowIpc } from '../../formats/arrow.js';
import { toParquet } from '../../formats/parquet.js';
import { AdhocQuery } from '../../model/data-queries.js';
import type { JsonValue } from '../../model/json.js';
import type { PipelineController } from '../controller.js';
import { engineOf, parseParams } from './common.js';
import type { DataState } from './data-state.js';

const cell = (v: JsonValue | undefined): string =>
  v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export function asciiTable(result: QueryResult): string {
  const names = result.columns.map((c) => c.name);
  const cells = result.rows.map((r) => names.map((n) => cell(r[n])));
  const widths = names.map((n, k) => Math.max(n.length, ...cells.map((row) => (row[k] ?? '').length)));
  const rule = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+\n';
  const line = (vals: string[]) => '|' + vals.map((v, k) => ` ${v.padEnd(widths[k] ?? 0)} `).join('|') + '|\n';
  return rule + line(names) + rule + cells.map(line).join('') + rule;
}

/** The hash of a result whatever the order of its rows: SHA-256 over the sorted lines of its rows. */
export function resultHash(result: QueryResult): string {
  const names = result.columns.map((c) => c.name);
  const lines = result.rows.map((r) => JSON.stringify(names.map((n) => r[n] ?? null))).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').toUpperCase();
}

/**
 * Rows as JSON lines, written as the replica reads them: each batch waits for the client to take
 * the one before. An error before the first batch is an error body; after it, the stream is cut.
 */
async function streamJson(
  reply: FastifyReply,
  run: (onRows: (rows: Row[]) => Promise<void>) => Promise<QueryResult>,
): Promise<FastifyReply> {
  const out = new PassThrough();
  // A stream cut by a late error is what the client sees of it; it is not this process's error.
  out.on('error', () => undefined);
  let sending = false;
  let started: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (started = resolve));
  const onRows = async (rows: Row[]) => {
    sending = true;
    started();
    if (!out.write(rows.map((r) => JSON.stringify(r) + '\n').join(''))) await once(out, 'drain');
  };
  const done = run(onRows).then(
    () => void out.end(),
    (error: unknown) => {
      if (sending) out.destroy(error as Error);
      throw error;
    },
  );
  done.catch(() => undefined);
  await Promise.race([first, done]);
  return reply.header('content-type', 'application/x-ndjson').send(out);
}

export function queryRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.get('/query', async (request, reply) => {
    const q = parseParams(AdhocQuery, request.query, 'InvalidQueryParameters');
    const engine = engineOf(ctl, state);
    // The response closed before it was finished: the client left, and its query stops.
    const left = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) left.abort();
    });
    const options: QueryOptions = {
      poolBytes: ctl.settings.queryPoolBytes,
      timeoutMs: ctl.settings.queryTimeoutMs,
      signal: left.signal,
    };
    if (q.format === 'json') return streamJson(reply, (onRows) => engine.queryWith(q.sql, { ...options, onRows }));
    const result = await engine.queryWith(q.sql, options);
    if (q.format === 'arrow_ipc')
      return reply.header('content-type', 'application/vnd.apache.arrow.stream').send(Buffer.from(toArrowIpc(result)));
    if (q.format === 'parquet')
      return reply.header('content-type', 'application/vnd.apache.parquet').send(Buffer.from(toParquet(result)));
    if (q.format === 'hash') return reply.header('content-type', 'text/plain').send(resultHash(result) + '\n');
    return reply.header('content-type', 'text/plain').send(asciiTable(result));
  });
}
