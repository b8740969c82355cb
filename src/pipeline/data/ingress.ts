// POST /ingress/{table}: decodes the body in its format, buffers the changes that fit for the next
// step and answers a completion token. Records that do not parse or do not fit the table's types are
// listed in a 400 ParseErrors body (bounded); the others of the same request still go in.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { decodeCsv } from '../../formats/csv-decode.js';
import type { Decoded, RecordError } from '../../formats/decoded.js';
import { decodeJson, UPDATE_FORMATS } from '../../formats/json-decode.js';
import { badRequest, SvcError } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import { boolParam, engineOf, parseParams } from './common.js';
import { makeToken, type DataState } from './data-state.js';

const IngressQuery = z.looseObject({
  format: z.enum(['json', 'csv']).default('csv'),
  update_format: z.enum(UPDATE_FORMATS).default('insert_delete'),
  array: boolParam.default(false),
  force: boolParam.default(false),
});
/** At most this many bad records are listed in the answer (all are counted). */
const LISTED_ERRORS = 100;
const PAUSE_POLL_MS = 200;

async function waitWhilePaused(ctl: PipelineController, state: DataState): Promise<void> {
  while (ctl.status === 'Paused') await state.nextStep(PAUSE_POLL_MS);
}

function parseErrors(errors: RecordError[], records: number, token: string): SvcError {
  const listed = errors.slice(0, LISTED_ERRORS).map((e) => ({ event_number: e.index, description: e.message }));
  return new SvcError(
    400,
    'ParseErrors',
    `${errors.length} of ${records} records could not be ingested (the others were): ${listed[0]?.description ?? ''}`,
    { num_errors: errors.length, errors: listed, token },
  );
}

export function ingressRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.post<{ Params: { table: string } }>('/ingress/:table', async (request) => {
    const q = parseParams(IngressQuery, request.query, 'InvalidIngressParameters');
    const engine = engineOf(ctl, state);
    const table = engine.resolve(request.params.table, 'table');
    if (!table)
      throw badRequest('UnknownInputTable', `no table named ${request.params.table} in the program`, {
        table: request.params.table,
      });
    if (!q.force) await waitWhilePaused(ctl, state);
    const text = typeof request.body === 'string' ? request.body : '';
    const decoded: Decoded =
      q.format === 'csv'
        ? decodeCsv(
            text,
            table.columns.map((c) => c.name),
          )
        : decodeJson(text, q.update_format, q.array);
    const result = await engine.ingest(table.name, decoded.changes);
    const errors = [
      ...decoded.errors,
      ...result.errors.map((e) => {
        const index = decoded.indexes[e.index] ?? e.index;
        return { index, message: `record ${index}: ${e.message}` };
      }),
    ].sort((a, b) => a.index - b.index);
    const endpoint = state.input(table.name);
    endpoint.total_records += result.accepted;
    endpoint.total_bytes += Buffer.byteLength(text);
    endpoint.num_parse_errors += errors.length;
    const token = makeToken(state.incarnation, result.seq);
    if (errors.length > 0) throw parseErrors(errors, decoded.records, token);
    return { token };
  });
}
