import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { planClear, planDismissError, planForceStop, planStart } from '../../lifecycle/actions.js';
import { forPipeline, forTarget } from '../../logging/logger.js';
import { unknownPipeline } from '../../model/errors.js';
import { checkPipelineBounds, NO_BOUNDS } from '../../model/pipeline-pod.js';
import { checkPipelineIdentity } from '../../model/pipeline-identity.js';
import { BootstrapPolicy, StartInitial } from '../../model/status.js';
import type { Plan } from '../../lifecycle/changes.js';
import { wakeRunner } from '../../store/channels.js';
import { mutatePipeline } from '../../store/pipelines/mutate.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { assertUnmanaged } from '../../model/pipeline-resource.js';
import { selectPipeline } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { forwardToPipeline } from '../forward.js';
import { parseQuery } from '../../model/validation.js';
import { answer, type NameParams, queryBool } from './params.js';

// The desired-state actions. Each answers with a bare JSON string, as the established API does.

export const StartQuery = z.object({
  initial: StartInitial.optional(),
  bootstrap_policy: BootstrapPolicy.optional(),
  dismiss_error: queryBool(true),
});
export const StopQuery = z.object({ force: queryBool(false) });

type Route = { Params: NameParams };

export function registerPipelineActions(app: FastifyInstance, deps: ApiDeps): void {
  const log = forTarget(deps.log, 'svc::api::actions');
  const act = async (name: string, decide: (row: PipelineRow) => Plan, what: string) => {
    const { after, changed } = await mutatePipeline(deps.db, name, decide);
    if (changed) forPipeline(log, after).info(what);
    return after;
  };

  app.post<Route>('/v0/pipelines/:pipeline_name/start', async (request, reply) => {
    const params = parseQuery(StartQuery, request.query);
    // Bounds are checked against the stored runtime_config at the start, inside the same transaction:
    // a start that asks for more than the operator allows changes nothing (the runner applies nothing).
    const start = (row: PipelineRow) => {
      assertUnmanaged(row, 'start');
      checkPipelineBounds(row.runtime_config.resources, deps.bounds ?? NO_BOUNDS);
      checkPipelineIdentity(row.runtime_config, deps.bounds ?? NO_BOUNDS);
      return planStart(row, params);
    };
    await act(request.params.pipeline_name, start, 'pipeline start requested');
    return answer(reply, 202, 'Pipeline is starting');
  });

  app.post<Route>('/v0/pipelines/:pipeline_name/stop', async (request, reply) => {
    const { force } = parseQuery(StopQuery, request.query);
    const name = request.params.pipeline_name;
    if (!force) {
      // A graceful stop suspends a running pipeline (checkpoint first). Until something is
      // running there is nothing to checkpoint, and it is the same as a forced stop.
      const row = await selectPipeline(deps.db, name, 'all');
      if (!row) throw unknownPipeline(name);
      assertUnmanaged(row, 'stop');
      if (row.deployment_resources_status === 'Provisioned' && row.deployment_location) {
        // Suspend with a checkpoint; the runner stops the pipeline once it reports Suspended.
        return forwardToPipeline(reply, {
          location: row.deployment_location,
          name,
          auth: deps.pipelineAuth(row.deployment_id ?? ''),
          method: 'POST',
          path: '/suspend',
          // Accepted: the checkpoint is written, the stop itself follows (API.md).
          okStatus: 202,
          after: () => wakeRunner(deps.db, row.id),
        });
      }
    }
    const stop = (row: PipelineRow) => {
      assertUnmanaged(row, 'stop');
      return planForceStop(row);
    };
    await act(name, stop, force ? 'pipeline forced stop requested' : 'pipeline stop requested');
    return answer(reply, 202, force ? 'Pipeline is forcefully stopping' : 'Pipeline is stopping');
  });

  app.post<Route>('/v0/pipelines/:pipeline_name/clear', async (request, reply) => {
    await act(request.params.pipeline_name, planClear, 'pipeline storage clearing requested');
    return answer(reply, 202, 'Pipeline storage is being cleared');
  });

  app.post<Route>('/v0/pipelines/:pipeline_name/dismiss_error', async (request, reply) => {
    await act(request.params.pipeline_name, planDismissError, 'pipeline deployment error dismissed');
    return answer(reply, 200, 'Deployment error has been dismissed');
  });
}
