import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import { jsonLoggerOptions, seedLineDestination } from './json-format.js';
import { textDestination } from './relayed-text.js';

export type { Logger } from 'pino';

/**
 * pino-pretty (~30 module files) is read only for text logs: a pipeline process, started once per
 * pipeline start and logging JSON under a runner that does, does not pay for it (~20 ms).
 */
const loadPretty = (): typeof import('pino-pretty') => createRequire(import.meta.url)('pino-pretty');

/** `svc-service` values of seed 6.3. */
export type ServiceName =
  'manager' | 'runner' | 'compiler-server' | 'kubernetes-runner' | 'api-server' | 'control-plane' | 'pipeline';

export interface LoggingOptions {
  service: ServiceName;
  json: boolean;
  level: string;
  /** Where lines go; standard output by default. Tests pass their own stream. */
  destination?: DestinationStream;
}

/**
 * JSON lines (seed 6.3) when `json`, readable text otherwise. Writes are synchronous so that the
 * last lines before an exit are never lost.
 */
export function createLogger(opts: LoggingOptions): Logger {
  const destination = opts.destination ?? pino.destination({ dest: 1, sync: true });
  if (opts.json)
    return pino({ ...jsonLoggerOptions(opts.service), level: opts.level }, seedLineDestination(destination));
  const pretty = loadPretty()({
    destination,
    sync: true,
    colorize: false,
    translateTime: 'UTC:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname,target,svc-service',
    messageFormat: '{if target}[{target}] {end}{msg}',
  });
  return pino({ level: opts.level, base: { 'svc-service': opts.service } }, textDestination(pretty, destination));
}

/** A logger for one module: `target` is its module path, e.g. `svc::api::pipelines`. */
export const forTarget = (log: Logger, target: string): Logger => log.child({ target });

/** A logger for lines about one pipeline (seed 6.2): its name and id at the top level. */
export const forPipeline = (log: Logger, pipeline: { name: string; id: string }): Logger =>
  log.child({ 'pipeline-name': pipeline.name, 'pipeline-id': pipeline.id });
