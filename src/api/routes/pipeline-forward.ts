import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { deploymentStatus } from '../../lifecycle/deployment-status.js';
import { badRequest, notDeployed, SvcError, unknownPipeline } from '../../model/errors.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { assertUnmanaged } from '../../model/pipeline-resource.js';
import { selectPipeline } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { forwardToPipeline } from '../forward.js';
import { sendLogLines } from '../../http/log-lines.js';
import type { OpenStreams } from '../../http/open-streams.js';
import { type NameParams, queryBool } from './params.js';
import { parseQuery } from '../../model/validation.js';

// Calls that go to the pipeline process itself (LIFECYCLE.md). The checks that need no pipeline
// process (existence, request validity, deployment) are made here first.

/** API action → the pipeline process's endpoint. */
const FORWARDED: Array<{
  method: 'GET' | 'POST';
  action: string;
  to: { method: 'GET' | 'POST'; path: string };
  timeoutMs?: number;
  /** The desired state a Pipeline resource declares: refused (409) on a pipeline it owns. */
  declared?: true;
}> = [
  { method: 'POST', action: 'pause', to: { method: 'POST', path: '/pause' }, declared: true },
  { method: 'POST', action: 'resume', to: { method: 'POST', path: '/start' }, declared: true },
  { method: 'POST', action: 'activate', to: { method: 'POST', path: '/activate' } },
  { method: 'POST', action: 'approve', to: { method: 'POST', path: '/approve' } },
  // A checkpoint writes the whole state before it answers: longer than the 10 s of the others.
  { method: 'POST', action: 'checkpoint', to: { method: 'POST', path: '/checkpoint' }, timeoutMs: 30_000 },
  { method: 'GET', action: 'stats', to: { method: 'GET', path: '/stats' } },
  { method: 'GET', action: 'metrics', to: { method: 'GET', path: '/metrics' } },
];
const KNOWN_ACTIONS = [
  'start',
  'stop',
  'clear',
  'dismiss_error',
  'pause',
  'resume',
  'activate',
  'approve',
  'checkpoint',
  'clock/advance',
];

const LogsQuery = z.object({ follow: queryBool(true) });

export const ClockAdvanceBody = z.strictObject({ delta_ms: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

type Route = { Params: NameParams };

export const queryOf = (url: string): string => url.split('?')[1] ?? '';

type Deployed = PipelineRow & { deployment_location: string };

/** Where a deployed pipeline answers and the token it requires: what every forwarded call needs. */
export const targetOf = (deps: ApiDeps, row: Deployed) => ({
  location: row.deployment_location,
  name: row.name,
  auth: deps.pipelineAuth(row.deployment_id ?? ''),
});

/** 503 while the pipeline is not deployed (the runner has not recorded where it answers). */
function assertDeployed(row: PipelineRow): asserts row is Deployed {
  if (row.deployment_resources_status !== 'Provisioned' || !row.deployment_location) {
    throw notDeployed(row.name, deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status));
  }
}

/** 404 for an unknown pipeline, 503 while it is not deployed; the deployed row otherwise. */
export async function requireDeployed(deps: ApiDeps, name: string): Promise<Deployed> {
  const row = await selectPipeline(deps.db, name, 'all');
  if (!row) throw unknownPipeline(name);
  assertDeployed(row);
  return row;
}

export function registerPipelineForwards(app: FastifyInstance, deps: ApiDeps, streams: OpenStreams): void {
  for (const f of FORWARDED) {
    app.route<Route>({
      method: f.method,
      url: `/v0/pipelines/:pipeline_name/${f.action}`,
      handler: async (request, reply) => {
        const row = await requireDeployed(deps, request.params.pipeline_name);
        if (f.declared) assertUnmanaged(row, f.action);
        return forwardToPipeline(reply, {
          ...targetOf(deps, row),
          ...f.to,
          query: queryOf(request.url),
          ...(f.timeoutMs !== undefined && { timeoutMs: f.timeoutMs }),
        });
      },
    });
  }

  // A follow stream (chunked text/plain, one line per log line): the backlog, then each new line
  // as the process writes it, until the deployment ends or the client disconnects. `follow=false`:
  // the backlog alone, so that a plain `curl` returns.
  app.get<Route>('/v0/pipelines/:pipeline_name/logs', async (request, reply) => {
    const name = request.params.pipeline_name;
    const { follow } = parseQuery(LogsQuery, request.query);
    const row = await selectPipeline(deps.db, name, 'status');
    if (!row) throw unknownPipeline(name);
    const gone = new AbortController();
    const lines = deps.pipelineLogs
      ? await deps.pipelineLogs({ id: row.id, name }, gone.signal, { follow })
      : undefined;
    if (lines === undefined)
      throw notDeployed(name, deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status));
    return sendLogLines(reply, lines, gone, streams);
  });

  app.post<Route>('/v0/pipelines/:pipeline_name/clock/advance', async (request, reply) => {
    const name = request.params.pipeline_name;
    const row = await selectPipeline(deps.db, name, 'all');
    if (!row) throw unknownPipeline(name);
    const parsed = ClockAdvanceBody.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badRequest(
        'InvalidClockAdvance',
        `delta_ms: ${issue?.message ?? 'invalid'} (expected {"delta_ms": <non-negative integer>})`,
        {
          field: 'delta_ms',
        },
      );
    }
    if (row.runtime_config.dev_tweaks.now_http_driven !== true) {
      throw badRequest(
        'InvalidClockAdvance',
        `Pipeline '${name}' does not have an HTTP-driven clock: set runtime_config.dev_tweaks.now_http_driven to true`,
        { field: 'runtime_config.dev_tweaks.now_http_driven' },
      );
    }
    assertDeployed(row);
    return forwardToPipeline(reply, {
      ...targetOf(deps, row),
      method: 'POST',
      path: '/clock/advance',
      body: parsed.data,
    });
  });

  // Any other action on a pipeline: 404 if the pipeline does not exist, else 405.
  app.post<{ Params: NameParams & { action: string } }>('/v0/pipelines/:pipeline_name/:action', async (request) => {
    const { pipeline_name: name, action } = request.params;
    if (!(await selectPipeline(deps.db, name, 'status'))) throw unknownPipeline(name);
    throw new SvcError(405, 'UnsupportedPipelineAction', `'${action}' is not a pipeline action`, {
      action,
      supported: KNOWN_ACTIONS,
    });
  });
}
