import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type PipelineLogs, sendLogLines } from '../http/log-lines.js';
import type { OpenStreams } from '../http/open-streams.js';
import { SvcError } from '../model/errors.js';

// GET /v0/pipelines/{pipeline_id}/logs on the runner's own port: the log of a pipeline process this
// runner started, for `svc api-server --runner-url` (the API's /logs takes a name; this, the id).
// The same follow stream as the API: chunked text/plain, the backlog, then each new line until the
// deployment ends, the caller leaves or the runner's server closes (`streams`).

const Params = z.object({ pipeline_id: z.uuid() });
const Query = z.object({ follow: z.enum(['true', 'false']).default('true') });

/** Registers the route; `logs` is undefined for a backend without log streams (Kubernetes). */
export function registerLogStream(app: FastifyInstance, logs: PipelineLogs | undefined, streams: OpenStreams): void {
  app.get('/v0/pipelines/:pipeline_id/logs', async (request, reply) => {
    const params = Params.safeParse(request.params);
    const fail = (error: SvcError) => reply.code(error.status).send(error.toBody());
    if (!params.success)
      return fail(
        new SvcError(400, 'MalformedRequest', 'pipeline_id: must be a pipeline id (a UUID)', { field: 'pipeline_id' }),
      );
    const id = params.data.pipeline_id;
    const query = Query.safeParse(request.query ?? {});
    if (!query.success)
      return fail(
        new SvcError(400, 'MalformedRequest', "query parameter 'follow': must be true or false", {
          parameter: 'follow',
        }),
      );
    const follow = query.data.follow === 'true';
    if (!logs) {
      return fail(
        new SvcError(
          503,
          'PipelineUnavailable',
          `This runner's backend keeps no pipeline log streams: a Kubernetes pipeline logs to its pod (kubectl logs statefulset/pipeline-${id})`,
          { pipeline_id: id },
        ),
      );
    }
    const gone = new AbortController();
    // The runner's app has no error mapping of its own: a failure still leaves as an error body.
    const lines = await logs({ id }, gone.signal, { follow }).catch(() => null);
    if (lines === null) return fail(new SvcError(500, 'InternalError', 'Internal server error'));
    if (lines === undefined)
      return fail(new SvcError(404, 'NotFound', `This runner has no log of pipeline ${id}`, { pipeline_id: id }));
    return sendLogLines(reply, lines, gone, streams);
  });
}
