import { format } from 'node:util';
import type { LoggerOptions } from 'pino';
import { microsecondClock } from './timestamp.js';

// The JSON line format of seed 6.3: identity members at the top level (`timestamp`, `level`,
// `target`, `svc-service`, `pipeline-name`, `pipeline-id`), the payload under `fields`.

/** The only members a line may carry at its top level besides `timestamp`, `level` and `fields`. */
export const IDENTITY_KEYS = ['target', 'svc-service', 'pipeline-name', 'pipeline-id'] as const;

const LEVELS: Record<string, string> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
};

const serializeError = (err: Error): Record<string, unknown> => ({
  type: err.name,
  message: err.message,
  ...(err.stack && { stack: err.stack }),
  ...((err as { code?: unknown }).code !== undefined && { code: (err as { code?: unknown }).code }),
});

/** Payload values: errors become plain objects so that their message and stack survive JSON. */
function toFields(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = v instanceof Error ? serializeError(v) : v;
  return out;
}

/**
 * Rewrites each call `log.info(obj?, msg?, ...args)` into `{fields: {message, ...obj}}`, so pino
 * writes the payload under `fields`. A relayed line (`{line}` and no message) keeps `fields.line`
 * (seed 6.3, rule 5).
 */
function nestUnderFields(
  this: { bindings(): Record<string, unknown> },
  args: unknown[],
  method: (...a: unknown[]) => void,
): void {
  let obj: Record<string, unknown> = {};
  let rest = args;
  const first = args[0];
  if (first instanceof Error) {
    obj = { error: first };
    rest = args.slice(1);
  } else if (typeof first === 'object' && first !== null) {
    obj = first as Record<string, unknown>;
    rest = args.slice(1);
  }
  const fields = toFields(obj);
  if (rest.length > 0) fields['message'] = format(...rest);
  else if (first instanceof Error) fields['message'] = first.message;
  else if (!('line' in fields) && !('message' in fields)) fields['message'] = '';
  // Every line has a target (rule 1); loggers made by `forTarget` bind one, this is the safety net.
  const top = 'target' in this.bindings() ? {} : { target: 'svc' };
  method.call(this, { ...top, fields });
}

export function jsonLoggerOptions(service: string): LoggerOptions {
  const now = microsecondClock();
  return {
    base: { 'svc-service': service },
    timestamp: () => `,"timestamp":"${now()}"`,
    formatters: {
      level: (label) => ({ level: LEVELS[label] ?? label.toUpperCase() }),
      // Child bindings go to the top level: keep only the identity members there (rule 4).
      bindings: (bindings) =>
        Object.fromEntries(Object.entries(bindings).filter(([k]) => (IDENTITY_KEYS as readonly string[]).includes(k))),
    },
    hooks: { logMethod: nestUnderFields as NonNullable<LoggerOptions['hooks']>['logMethod'] },
  };
}
