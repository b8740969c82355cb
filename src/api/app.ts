import type { Server } from 'node:http';
import { createServer } from 'node:https';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerFactory,
  LogController,
} from 'fastify';
import { forTarget } from '../logging/logger.js';
import { registerApiKeyAuth } from './auth.js';
import { BODY_LIMIT_BYTES, registerJsonParser } from './body-parser.js';
import type { ApiDeps } from './deps.js';
import { errorHandler } from '../http/error-handler.js';
import { clientErrorHandler } from '../http/client-error.js';
import { registerHttpMetrics } from '../http/metrics.js';
import { closeGracefully } from '../http/open-streams.js';
import { buildOpenApi, type RouteInfo } from './openapi.js';
import { registerPipelineActions } from './routes/pipeline-actions.js';
import { registerPipelineData } from './routes/pipeline-data.js';
import { registerPipelineForwards } from './routes/pipeline-forward.js';
import { registerPipelineReads } from './routes/pipelines-read.js';
import { registerPipelineWrites } from './routes/pipelines-write.js';
import { notFound, registerPlatformRoutes } from './routes/platform.js';
import { registerNotServed } from './routes/not-served.js';
import { registerPlatformExtra } from './routes/platform-extra.js';
import { registerSupportBundle } from './routes/support-bundle.js';

function httpsFactory(tls: { cert: Buffer; key: Buffer }): FastifyServerFactory<Server> {
  return (handler) => createServer({ cert: tls.cert, key: tls.key }, handler) as unknown as Server;
}

/** The HTTP API of API.md, built from its dependencies: the same app runs in svc and in the tests. */
export function buildApp(deps: ApiDeps): FastifyInstance {
  const log = forTarget(deps.log, 'svc::api');
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance's default type parameters.
    loggerInstance: forTarget(deps.log, 'svc::api::http') as FastifyBaseLogger,
    // One line per request is written below, at debug level; fastify's own pair of lines is noise.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // A request Node's parser refuses is answered with the documented error body too.
    clientErrorHandler,
    // Pipeline names may be up to 63 bytes; the default 100 would do, but be explicit.
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    // HTTPS through a server factory: fastify's own `https` option would change the instance's server
    // type in every route module, and an https.Server has all fastify calls on it (listen, close, address).
    ...(deps.tls && { serverFactory: httpsFactory(deps.tls) }),
  });
  // Every route, as registered: the OpenAPI document lists exactly these (built on first request,
  // once every route of this app exists).
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  registerJsonParser(app);
  app.setErrorHandler(errorHandler(log));
  app.setNotFoundHandler((request, reply) => {
    if (deps.console?.(request, reply)) return;
    const error = notFound(request.method, request.url);
    void reply.status(404).send(error.toBody());
  });
  if (deps.apiKey) registerApiKeyAuth(app, deps.apiKey);
  registerHttpMetrics(app, deps.metrics);
  app.addHook('onResponse', async (request, reply) => {
    log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
  });

  let openApi: Record<string, unknown> | undefined;
  app.get('/v0/openapi.json', async () => (openApi ??= buildOpenApi(deps.build.version, routes)));
  registerPlatformRoutes(app, deps);
  registerPipelineReads(app, deps);
  registerPipelineWrites(app, deps);
  registerPipelineActions(app, deps);
  // Egress and log follows last as long as their clients want: ended when the app closes, or its
  // close would wait for them (src/http/open-streams.ts).
  const streams = closeGracefully(app);
  registerPipelineForwards(app, deps, streams);
  registerPipelineData(app, deps, streams);
  registerPlatformExtra(app, deps);
  registerSupportBundle(app, deps);
  registerNotServed(app, deps);
  return app;
}
