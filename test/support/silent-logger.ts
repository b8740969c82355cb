import { Writable } from 'node:stream';
import { createLogger, type Logger, type ServiceName } from '../../src/logging/logger.js';

/** A logger of the given service that writes nowhere (tests that assert on results, not on logs). */
export function silentLogger(service: ServiceName = 'pipeline', level = 'info'): Logger {
  return createLogger({ service, json: true, level, destination: new Writable({ write: (_c, _e, done) => done() }) });
}
