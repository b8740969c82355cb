import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { z } from 'zod';
import { toSvcError } from '../http/error-handler.js';
import { clientErrorHandler } from '../http/client-error.js';
import { closeGracefully } from '../http/open-streams.js';
import { serveMetrics } from '../http/metrics-endpoint.js';
import { connectorRoutes } from '../connectors/routes.js';
import { ConnectorRuntime } from '../connectors/runtime.js';
import type { Logger } from '../logging/logger.js';
import { badRequest, SvcError } from '../model/errors.js';
import { requireToken } from './auth.js';
import type { PipelineController } from './controller.js';
import { DataState, makeToken } from './data/data-state.js';
import { dataRoutes } from './data/routes.js';
import { statsBody } from './stats-body.js';

// The pipeline process's HTTP API (LIFECYCLE.md "Pipeline process endpoints"). Every failure is the
// error body of seed section 7; a fatal start-up error answers /status with its own non-200 body,
// which the runner stores as deployment_error.

const ActivateQuery = z.object({ initial: z.enum(['running', 'paused']).default('running') });
const ClockAdvance = z.object({ delta_ms: z.number() });

function parseOr<T>(schema: z.ZodType<T>, value: unknown, code: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(code, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
}

/**
 * The routes declare no fastify schemas (bodies are checked with zod, parseOr), so fastify's own
 * schema compilers are never used. Passing these keeps fastify from loading them: ajv and
 * fast-json-stringify are ~320 of the ~680 module files a pipeline process read at start.
 */
const noSchemaCompiler = () => (): never => {
  throw new Error('the pipeline API declares no fastify schemas: check input with zod (parseOr)');
};

export function buildPipelineApp(ctl: PipelineController, log: Logger, token?: string): FastifyInstance {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler,
    schemaController: { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } },
  });
  app.setErrorHandler((error, request, reply) => {
    const svcError = toSvcError(error);
    if (svcError.status >= 500 && !(error instanceof SvcError))
      log.error({ error, method: request.method, url: request.url }, 'request failed');
    void reply.status(svcError.status).send(svcError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const body = new SvcError(404, 'NotFound', `no endpoint ${request.method} ${request.url}`, {
      method: request.method,
      path: request.url,
    });
    void reply.status(404).send(body.toBody());
  });
  // First of the onRequest hooks: an unauthenticated /status must not feed the orphan watchdog either.
  if (token !== undefined) requireToken(app, token);
  app.addHook('onResponse', async (request, reply) => {
    log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
  });
  // prom-client and the metrics are loaded by the first scrape (src/http/metrics-endpoint.ts); the
  // connectors it reads are made below, before any request can arrive.
  serveMetrics(app, async () =>
    (await import('./metrics.js')).pipelineMetrics(ctl, () => statsBody(ctl, data, connectors)),
  );

  const data = new DataState();
  dataRoutes(app, ctl, data);
  // Open egress streams end first: the server's close waits for every request in flight.
  closeGracefully(app, data.openStreams);
  const connectors = startConnectors(app, ctl, data, log);
  app.get('/status', async () => ctl.extendedStatus());
  // State changes are POST (GET must be safe: a link, a prefetch or a crawler must not pause a pipeline).
  app.post('/start', async () => {
    ctl.setDesired('Running');
    return ctl.extendedStatus();
  });
  app.post('/pause', async () => {
    ctl.setDesired('Paused');
    return ctl.extendedStatus();
  });
  app.post('/activate', async (request) => {
    const { initial } = parseOr(ActivateQuery, request.query, 'InvalidActivate');
    ctl.activate(initial === 'running' ? 'Running' : 'Paused');
    return ctl.extendedStatus();
  });
  app.post('/approve', async () => {
    ctl.approve();
    return ctl.extendedStatus();
  });
  app.post('/suspend', async () => {
    const checkpoint = await ctl.suspend();
    return { ...ctl.extendedStatus(), checkpoint: checkpoint?.id ?? null };
  });
  app.get('/stats', async () => statsBody(ctl, data, connectors));
  app.get('/stats/errors', async () => []);
  app.post('/clock/advance', async (request) => {
    const { delta_ms } = parseOr(ClockAdvance, request.body, 'InvalidClockAdvance');
    const now = await ctl.advanceClock(delta_ms);
    return { now_ms: now, now: new Date(now).toISOString() };
  });
  return app;
}

/** The program's connectors (src/connectors): started with the engine, stopped before it closes. */
function startConnectors(app: FastifyInstance, ctl: PipelineController, data: DataState, log: Logger) {
  const connectors = new ConnectorRuntime(log);
  ctl.connectorErrors = () => connectors.numErrors();
  ctl.dumpWithPositions = (dump) => connectors.withPositions(dump);
  data.outputsSentThrough = () => connectors.sentThrough();
  ctl.onStarted(() => {
    const engine = ctl.dataEngine;
    const info = ctl.programInfo;
    if (!engine || !info) return;
    data.attach(engine);
    connectors
      .start({
        engine,
        info,
        subscribe: (listener) => data.subscribe(listener),
        // Connectors stop pulling while paused and while memory pressure holds input (they resume after).
        pipelinePaused: () => ctl.status !== 'Running' || ctl.inputHold.held,
        parallel: ctl.settings.maxParallelConnectorInit,
        resume: ctl.resumedPositions,
      })
      .catch((error: unknown) => log.error({ error }, 'connectors failed to start: %s', (error as Error).message));
  });
  app.addHook('onClose', () => connectors.stop());
  connectorRoutes(app, connectors, (seq) => makeToken(data.incarnation, seq));
  return connectors;
}
