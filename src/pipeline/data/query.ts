// GET /query?sql=&format=: an ad-hoc SELECT over materialized relations as of the last completed step.
// text: an ASCII table; json: one object a line; hash: one SHA-256 line of the sorted result.
// arrow_ipc and parquet need a library that is not installed: 501 saying so.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { QueryResult } from '../../engine/types.js';
import type { JsonValue } from '../../model/json.js';
import { SvcError } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import { engineOf, parseParams } from './common.js';
import type { DataState } from './data-state.js';

const QueryParams = z.looseObject({
  sql: z.string().min(1),
  format: z.enum(['text', 'json', 'arrow_ipc', 'parquet', 'hash']).default('text'),
});

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

export function queryRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.get('/query', async (request, reply) => {
    const q = parseParams(QueryParams, request.query, 'InvalidQueryParameters');
    if (q.format === 'arrow_ipc' || q.format === 'parquet')
      throw new SvcError(
        501,
        'UnsupportedQueryFormat',
        `format: ${q.format} is not available (no Arrow/Parquet library is installed); use json, text or hash`,
        {
          field: 'format',
          format: q.format,
        },
      );
    const result = await engineOf(ctl, state).query(q.sql, ctl.settings.queryPoolBytes);
    if (q.format === 'json') {
      const body = result.rows.map((r) => JSON.stringify(r) + '\n').join('');
      return reply.header('content-type', 'application/x-ndjson').send(body);
    }
    if (q.format === 'hash') return reply.header('content-type', 'text/plain').send(resultHash(result) + '\n');
    return reply.header('content-type', 'text/plain').send(asciiTable(result));
  });
}
