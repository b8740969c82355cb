import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, notDeployed, SvcError, unknownPipeline } from '../../model/errors.js';
import { deploymentStatus } from '../../lifecycle/deployment-status.js';
import { selectPipeline } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { unreachable } from './pipeline-actions.js';
import type { NameParams } from './params.js';

// Calls that go to the pipeline process itself (LIFECYCLE.md). They need a deployed pipeline; the
// checks that need no pipeline process (existence, request validity) are made first, here.

const POST_FORWARDED = ['pause', 'resume', 'activate', 'approve', 'checkpoint'] as const;
const GET_FORWARDED = ['stats', 'metrics', 'logs'] as const;
const KNOWN_ACTIONS = new Set(['start', 'stop', 'clear', 'dismiss_error', ...POST_FORWARDED]);

const ClockAdvanceBody = z.strictObject({ delta_ms: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

type Route = { Params: NameParams };

export function registerPipelineForwards(app: FastifyInstance, { db }: ApiDeps): void {
  /** 404 for an unknown pipeline, 503 while it is not deployed. */
  const requireDeployed = async (name: string) => {
    const row = await selectPipeline(db, name, 'all');
    if (!row) throw unknownPipeline(name);
    if (row.deployment_resources_status !== 'Provisioned') {
      throw notDeployed(name, deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status));
    }
    return row;
  };

  for (const action of POST_FORWARDED) {
    app.post<Route>(`/v0/pipelines/:pipeline_name/${action}`, async (request) => {
      const row = await requireDeployed(request.params.pipeline_name);
      throw unreachable(row.name);
    });
  }
  for (const what of GET_FORWARDED) {
    app.get<Route>(`/v0/pipelines/:pipeline_name/${what}`, async (request) => {
      const row = await requireDeployed(request.params.pipeline_name);
      throw unreachable(row.name);
    });
  }

  app.post<Route>('/v0/pipelines/:pipeline_name/clock/advance', async (request) => {
    const name = request.params.pipeline_name;
    const row = await selectPipeline(db, name, 'all');
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
    await requireDeployed(name);
    throw unreachable(name);
  });

  // Any other action on a pipeline: 404 if the pipeline does not exist, else 405.
  app.post<{ Params: NameParams & { action: string } }>('/v0/pipelines/:pipeline_name/:action', async (request) => {
    const { pipeline_name: name, action } = request.params;
    if (!(await selectPipeline(db, name, 'status'))) throw unknownPipeline(name);
    throw new SvcError(405, 'UnsupportedPipelineAction', `'${action}' is not a pipeline action`, {
      action,
      supported: [...KNOWN_ACTIONS, 'clock/advance'],
    });
  });
}
