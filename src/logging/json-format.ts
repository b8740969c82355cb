import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { microsecondClock } from './timestamp.js';

// The JSON line format of seed 6.3: identity members at the top level (`timestamp`, `level`,
// `target`, `svc-service`, `pipeline-name`, `pipeline-id`), the payload under `fields`.
//
// pino writes a flat line; `toSeedLine` moves everything that is not identity under `fields`. It
// runs on the finished line, so no binding or merge object of any logger (ours or fastify's) can
// reach the top level.

/** The only members a line carries at its top level. */
export const TOP_LEVEL = [
  'timestamp',
  'level',
  'target',
  'fields',
  'svc-service',
  'pipeline-name',
  'pipeline-id',
] as const;
const IDENTITY = new Set<string>(TOP_LEVEL);

const LEVELS: Record<string, string> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
};

export function toSeedLine(flat: string): string {
  const input = JSON.parse(flat) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  const out: Record<string, unknown> = {
    timestamp: input['timestamp'],
    level: input['level'],
    target: input['target'] ?? 'svc',
  };
  for (const [k, v] of Object.entries(input)) {
    if (k === 'fields' && typeof v === 'object' && v !== null) Object.assign(fields, v);
    else if (IDENTITY.has(k)) {
      if (!(k in out)) out[k] = v;
    } else fields[k] = v;
  }
  // Rule 5: relayed pipeline output carries `line`; every other line carries `message`.
  if (!('line' in fields) && !('message' in fields)) fields['message'] = '';
  out['fields'] = fields;
  return `${JSON.stringify(out)}\n`;
}

/** Wraps a destination so that every line written to it is in the seed's form. */
export function seedLineDestination(destination: DestinationStream): DestinationStream {
  return { write: (line: string) => destination.write(toSeedLine(line)) };
}

export function jsonLoggerOptions(service: string): LoggerOptions {
  const now = microsecondClock();
  return {
    base: { 'svc-service': service },
    messageKey: 'message',
    timestamp: () => `,"timestamp":"${now()}"`,
    formatters: { level: (label) => ({ level: LEVELS[label] ?? label.toUpperCase() }) },
    // Errors keep their type, message and stack, whichever key they are logged under.
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
  };
}
