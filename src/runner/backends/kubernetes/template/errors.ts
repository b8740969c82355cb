import { SvcError } from '../../../../model/errors.js';

/** Where a template came from: named in every error so an operator knows which config map to fix. */
export interface TemplateSource {
  configMap: string;
  key: string;
}

/**
 * A template that cannot become a StatefulSet (KUBERNETES.md "Pipeline template"). It is found before
 * anything is applied, so the runner stores it as `deployment_error` and the pipeline goes back to
 * Stopped; 400 because the fix is in the user's (or operator's) configuration, not in the service.
 */
export function templateError(source: TemplateSource, reason: string, line?: number): SvcError {
  const where = line === undefined ? '' : `, line ${line}`;
  return new SvcError(
    400,
    'TemplateError',
    `Pipeline template in config map '${source.configMap}', key '${source.key}'${where}: ${reason}`,
    {
      config_map: source.configMap,
      key: source.key,
      ...(line !== undefined && { line }),
      reason,
    },
  );
}

export const isTemplateError = (e: unknown): e is SvcError => e instanceof SvcError && e.errorCode === 'TemplateError';
