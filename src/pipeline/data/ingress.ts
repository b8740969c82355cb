// POST /ingress/{table}: decodes the body in its format, buffers the changes that fit for the next
// step and answers a completion token. Records that do not parse or do not fit the table's types are
// listed in a 400 ParseErrors body (bounded); the others of the same request still go in.
import type { FastifyInstance } from 'fastify';
import { withoutBom } from '../../formats/bom.js';
import type { RecordError } from '../../formats/decoded.js';
import { type BodyFormat, IngressQuery } from '../../model/data-queries.js';
import { badRequest, SvcError } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import type { MemorySample } from '../input-hold.js';
import { engineOf, parseParams } from './common.js';
import { makeToken, type DataState } from './data-state.js';

/** At most this many bad records are listed in the answer (all are counted). */
const LISTED_ERRORS = 100;
const PAUSE_POLL_MS = 200;
/**
 * How long an ingress waits for the engine (busy with a long step) or for a pause to end before it
 * answers anyway: below the api-server's 30 s bound on a forwarded ingress, so the client hears this
 * pipeline's answer, never a guess.
 */
export const INGRESS_ANSWER_MS = 20_000;

const stillPaused = (): SvcError =>
  new SvcError(
    503,
    'PipelinePaused',
    `the pipeline stayed paused for ${INGRESS_ANSWER_MS / 1000} s: nothing of this request was ingested (retry later, or send it with force=true)`,
    { waited_secs: INGRESS_ANSWER_MS / 1000 },
  );

/** The records were handed to the engine, which has not said yet whether they fit: the token tells later. */
const outcomeUnknown = (token: string): SvcError =>
  new SvcError(
    504,
    'IngressOutcomeUnknown',
    `the engine did not answer within ${INGRESS_ANSWER_MS / 1000} s (a long step is running): the records were handed to it and will be applied unless they do not fit the table; GET /completion_status?token=${token} says when they are`,
    { token, waited_secs: INGRESS_ANSWER_MS / 1000 },
  );

/**
 * Input held under memory pressure (max_rss_mb): the answer once the wait is over, in the units of
 * the setting, with what the user can do.
 */
const memoryHeld = (sample: MemorySample | undefined): SvcError =>
  new SvcError(
    503,
    'MemoryPressure',
    `memory pressure ${sample?.levelName ?? 'high'}: the pipeline uses ${sample?.rssMb ?? '?'} MB of its ${sample?.budgetMb ?? '?'} MB budget (max_rss_mb, else resources.memory_mb_max), and input stayed held for ${INGRESS_ANSWER_MS / 1000} s: nothing of this request was ingested (retry later, once the views' outputs are read; or raise max_rss_mb)`,
    {
      memory_pressure: sample?.levelName ?? null,
      rss_mb: sample?.rssMb ?? null,
      budget_mb: sample?.budgetMb ?? null,
    },
  );

/**
 * Waits while input is not taken, at most INGRESS_ANSWER_MS: while the pipeline is paused (unless
 * `force`) and while memory pressure holds input (even with `force`: it would be taken into the
 * memory that is running out). False if the client left meanwhile.
 */
async function waitForInput(
  ctl: PipelineController,
  state: DataState,
  force: boolean,
  left: () => boolean,
): Promise<boolean> {
  const until = Date.now() + INGRESS_ANSWER_MS;
  for (;;) {
    if (left()) return false;
    const paused = !force && ctl.status === 'Paused';
    if (!paused && !ctl.inputHold.held) return true;
    if (Date.now() >= until) throw paused ? stillPaused() : memoryHeld(ctl.inputHold.sample);
    await state.nextStep(PAUSE_POLL_MS);
  }
}

/** What became of the body's other records: they went in (none, when every record failed). */
const others = (n: number): string => (n <= 0 ? '' : n === 1 ? ' (the other one was)' : ` (the other ${n} were)`);

function parseErrors(errors: RecordError[], records: number, token: string): SvcError {
  const listed = errors.slice(0, LISTED_ERRORS).map((e) => ({ event_number: e.index, description: e.message }));
  return new SvcError(
    400,
    'ParseErrors',
    // The established server's opening words, which its clients and tests look for.
    `Errors parsing input data (${errors.length} errors): ${errors.length} of ${records} records could not be ingested${others(records - errors.length)}: ${listed[0]?.description ?? ''}`,
    { num_errors: errors.length, errors: listed, token },
  );
}

export function ingressRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.post<{ Params: { table: string } }>('/ingress/:table', async (request, reply) => {
    const q = parseParams(IngressQuery, request.query, 'InvalidIngressParameters');
    const engine = engineOf(ctl, state);
    const table = engine.resolve(request.params.table, 'table');
    if (!table)
      throw badRequest('UnknownInputTable', `no table named ${request.params.table} in the program`, {
        table: request.params.table,
      });
    // A client that left while its request waited for the pause to end is not ingested later.
    if (!(await waitForInput(ctl, state, q.force, () => reply.raw.destroyed)))
      throw new SvcError(499, 'ClientClosedRequest', 'the client left while its input was held: nothing ingested');
    const text = withoutBom(typeof request.body === 'string' ? request.body : '');
    // Decoded on the engine's thread, where its rows are converted: this one, which serves every
    // request, parses none of it.
    const { update_format, array, json_flavor } = q;
    const format: BodyFormat = { format: q.format, update_format, array, json_flavor };
    const handed = engine.ingestBody(table.name, text, format);
    const token = makeToken(state.incarnation, handed.seq);
    const endpoint = state.input(table.name);
    endpoint.total_bytes += Buffer.byteLength(text);
    // Counted when the engine answers, whether or not this request is still waiting for it.
    const counted = handed.result.then((answer) => {
      endpoint.total_records += answer.result.accepted;
      endpoint.num_parse_errors += answer.decoded.errors.length + answer.result.errors.length;
      return answer;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), INGRESS_ANSWER_MS)));
    const answer = await Promise.race([counted, late]).finally(() => clearTimeout(timer));
    if (!answer) {
      counted.catch(() => undefined);
      throw outcomeUnknown(token);
    }
    const { result, decoded } = answer;
    const errors = [
      ...decoded.errors,
      ...result.errors.map((e) => {
        const index = decoded.indexes[e.index] ?? e.index;
        return { index, message: `record ${index}: ${e.message}` };
      }),
    ].sort((a, b) => a.index - b.index);
    if (errors.length > 0) throw parseErrors(errors, decoded.records, token);
    return { token };
  });
}
