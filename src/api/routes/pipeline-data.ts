import type { FastifyInstance } from 'fastify';
import type { OpenStreams } from '../../http/open-streams.js';
import type { ApiDeps } from '../deps.js';
import { forwardToPipeline } from '../forward.js';
import { streamFromPipeline } from '../forward-stream.js';
import type { NameParams } from './params.js';
import { queryOf, requireDeployed, targetOf } from './pipeline-forward.js';

// The data path's calls (docs/data-path.md), forwarded to the pipeline process: ingress with a 30 s
// bound and its body passed through unparsed, egress and query streamed without a bound, the rest
// with the default bound. Not deployed → 503 before any call is made.

const INGRESS_TIMEOUT_MS = 30_000;
const INGRESS_BODY_LIMIT = 256 * 1024 * 1024;

type Segment<K extends string> = { Params: NameParams & Record<K, string> };

export function registerPipelineData(app: FastifyInstance, deps: ApiDeps, streams: OpenStreams): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGRESS_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.post<Segment<'table'>>('/v0/pipelines/:pipeline_name/ingress/:table', async (request, reply) => {
      const row = await requireDeployed(deps, request.params.pipeline_name);
      const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return forwardToPipeline(reply, {
        ...targetOf(deps, row),
        method: 'POST',
        path: `/ingress/${encodeURIComponent(request.params.table)}`,
        query: queryOf(request.url),
        rawBody: { data, contentType: request.headers['content-type'] ?? 'application/octet-stream' },
        timeoutMs: INGRESS_TIMEOUT_MS,
      });
    });
    scope.post<Segment<'view'>>('/v0/pipelines/:pipeline_name/egress/:view', async (request, reply) => {
      const row = await requireDeployed(deps, request.params.pipeline_name);
      return streamFromPipeline(request, reply, {
        ...targetOf(deps, row),
        method: 'POST',
        path: `/egress/${encodeURIComponent(request.params.view)}`,
        query: queryOf(request.url),
        // An egress stream never ends by itself; a query's answer does, and is let finish.
        endOnClose: streams,
      });
    });
  });
  app.get<{ Params: NameParams }>('/v0/pipelines/:pipeline_name/query', async (request, reply) => {
    const row = await requireDeployed(deps, request.params.pipeline_name);
    return streamFromPipeline(request, reply, {
      ...targetOf(deps, row),
      method: 'GET',
      path: '/query',
      query: queryOf(request.url),
    });
  });
  // The profiling calls answer 501 from the pipeline (src/pipeline/data/not-served.ts).
  for (const path of [
    'completion_status',
    'checkpoint_status',
    'checkpoints',
    'time_series',
    'circuit_profile',
    'heap_profile',
  ])
    app.get<{ Params: NameParams }>(`/v0/pipelines/:pipeline_name/${path}`, async (request, reply) => {
      const row = await requireDeployed(deps, request.params.pipeline_name);
      return forwardToPipeline(reply, {
        ...targetOf(deps, row),
        method: 'GET',
        path: `/${path}`,
        query: queryOf(request.url),
      });
    });
  // Named connectors (src/connectors/routes.ts): start, pause and stats of one input or output
  // connector, and an input connector's completion token.
  type ConnectorParams = { Params: NameParams & { relation: string; connector: string } };
  const actions = [
    ['POST', 'start'],
    ['POST', 'pause'],
    ['GET', 'stats'],
  ] as const;
  for (const kind of ['tables', 'views'] as const)
    for (const [method, action] of kind === 'tables' ? [...actions, ['GET', 'completion_token'] as const] : actions)
      app.route<ConnectorParams>({
        method,
        url: `/v0/pipelines/:pipeline_name/${kind}/:relation/connectors/:connector/${action}`,
        handler: async (request, reply) => {
          const row = await requireDeployed(deps, request.params.pipeline_name);
          const { relation, connector } = request.params;
          return forwardToPipeline(reply, {
            ...targetOf(deps, row),
            method,
            path: `/${kind}/${encodeURIComponent(relation)}/connectors/${encodeURIComponent(connector)}/${action}`,
            query: queryOf(request.url),
          });
        },
      });
}
