import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../../model/errors.js';
import type { ProgramInfo, SqlCompilerMessage } from '../../model/program.js';
import { listPipelines } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { notServed } from './not-served.js';
import type { NameParams } from './params.js';

// Platform calls the ecosystem's clients reach for beyond the pipeline records: compiling a program
// without a pipeline (validate_program), the metrics of every running pipeline at once
// (GET /v0/metrics), and the event histories, which svc does not keep: those answer 501 with a
// message that says what to use instead, never a 404 that reads like a wrong URL.

/** What the compiler's SQL stage makes of a program (src/compiler/sql/compile.ts). */
export type ProgramValidation =
  { ok: true; info: ProgramInfo; warnings: SqlCompilerMessage[] } | { ok: false; messages: SqlCompilerMessage[] };

export const ValidateProgramBody = z.looseObject({
  program_code: z.string(),
  runtime_version: z.string().optional(),
  ir: z.boolean().optional(),
});

const PIPELINE_METRICS_MS = 5_000;

export function registerPlatformExtra(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/v0/validate_program', async (request) => {
    const parsed = ValidateProgramBody.safeParse(request.body);
    if (!parsed.success)
      throw badRequest('MalformedRequest', 'program_code: expected {"program_code": "<SQL>"}', {
        field: 'program_code',
      });
    if (!deps.validateProgram)
      throw notServed(
        'validate_program',
        'this API server runs without the compiler (svc api-server); svc manager serves it, or create the pipeline and read program_error',
      );
    const result = await deps.validateProgram(parsed.data.program_code);
    if (!result.ok) return { SqlError: { exit_code: 1, messages: result.messages } };
    return { Success: { program_info: result.info, warnings: result.warnings } };
  });

  // Each deployed pipeline's own /metrics (each series labelled with its pipeline and name), one
  // after another; a pipeline that does not answer is left out, said in a comment line.
  app.get('/v0/metrics', async (_request, reply) => {
    const rows = await listPipelines(deps.db, 'all');
    const parts: string[] = [];
    for (const row of rows) {
      if (row.deployment_resources_status !== 'Provisioned' || !row.deployment_location) continue;
      try {
        const res = await fetch(`${row.deployment_location}/metrics`, {
          headers: deps.pipelineAuth(row.deployment_id ?? ''),
          signal: AbortSignal.timeout(PIPELINE_METRICS_MS),
        });
        parts.push(await res.text());
      } catch (error) {
        parts.push(`# pipeline ${row.name} did not answer: ${(error as Error).message}\n`);
      }
    }
    return reply.type('text/plain').send(parts.join(''));
  });

  const eventsWhy = 'svc keeps no event history; GET /v0/cluster_healthz answers the current health';
  app.get('/v0/cluster/events', async () => {
    throw notServed('cluster/events', eventsWhy);
  });
  app.get('/v0/cluster/events/:event_id', async () => {
    throw notServed('cluster/events', eventsWhy);
  });
  const pipelineEventsWhy =
    "svc keeps no event history; GET /v0/pipelines/{name} answers the current status, …/logs the process's log";
  app.get<{ Params: NameParams }>('/v0/pipelines/:pipeline_name/events', async () => {
    throw notServed('pipelines/{name}/events', pipelineEventsWhy);
  });
  app.get<{ Params: NameParams }>('/v0/pipelines/:pipeline_name/events/:event_id', async () => {
    throw notServed('pipelines/{name}/events', pipelineEventsWhy);
  });
}
