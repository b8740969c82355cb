// The pipeline process's data path routes, in a scope of their own: ingress bodies are read as text
// (JSON lines or CSV), not by the JSON parser the lifecycle routes use.
import type { FastifyInstance } from 'fastify';
import { MAX_BODY_BYTES } from '../../engine/limits.js';
import type { PipelineController } from '../controller.js';
import { checkpointRoutes } from './checkpoint.js';
import { circuitProfileRoute } from './circuit-profile.js';
import { completionRoute } from './completion.js';
import type { DataState } from './data-state.js';
import { egressRoute } from './egress.js';
import { ingressRoute } from './ingress.js';
import { notServedRoutes } from './not-served.js';
import { queryRoute } from './query.js';

export function dataRoutes(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    ingressRoute(scope, ctl, state);
    egressRoute(scope, ctl, state);
  });
  completionRoute(app, ctl, state);
  queryRoute(app, ctl, state);
  checkpointRoutes(app, ctl, state);
  circuitProfileRoute(app, ctl, state);
  notServedRoutes(app);
}
