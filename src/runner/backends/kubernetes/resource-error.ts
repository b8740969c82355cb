import type { ErrorBody } from '../../../model/errors.js';

/** The `deployment_error` of a fatal resource error (KUBERNETES.md "Observing"). */
export function resourceError(kind: string, name: string, reason: string, message: string): ErrorBody {
  return {
    error_code: 'ResourceError',
    message: `${kind} ${name}: ${reason}${message ? `: ${message}` : ''}`,
    details: { kind, name, reason, message },
  };
}
