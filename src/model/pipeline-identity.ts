import { badRequest, type SvcError } from './errors.js';
import type { JsonValue } from './json.js';

// What a pipeline's pod runs as and runs first (docs/security.md): an API caller names
// runtime_config.resources.service_account_name and runtime_config.init_containers, and the pod gets
// that account's token and those images. The operator's allowlists (chart values
// pipeline.serviceAccounts and pipeline.initContainerImages) are checked at /start, so a start that
// names anything else changes nothing.

/** An allowlist: undefined allows anything (a manager with no cluster), an empty list nothing. */
export interface IdentityAllowlists {
  serviceAccounts?: readonly string[];
  initContainerImages?: readonly string[];
}

function refused(field: string, message: string, bound: string, allowed: readonly string[]): SvcError {
  return badRequest('InvalidRuntimeConfig', `${field}: ${message}`, {
    field,
    bound,
    limit: allowed.join(','),
    errors: [{ field, message: `${field}: ${message}` }],
  });
}

const allowedText = (allowed: readonly string[]) =>
  allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : 'the operator allows none';

/** Throws a 400 naming the first field outside the allowlists. */
export function checkPipelineIdentity(
  runtime: { resources?: { service_account_name?: string | null } | null; init_containers?: JsonValue },
  lists: IdentityAllowlists,
): void {
  const account = runtime.resources?.service_account_name;
  if (account != null && lists.serviceAccounts && !lists.serviceAccounts.includes(account)) {
    const field = 'runtime_config.resources.service_account_name';
    throw refused(
      field,
      `'${account}' is not a service account pipelines may use (${allowedText(lists.serviceAccounts)})`,
      'pipeline.serviceAccounts',
      lists.serviceAccounts,
    );
  }
  const images = lists.initContainerImages;
  const containers = runtime.init_containers;
  if (!images || containers == null) return;
  // Not a list of containers: the shape is the Kubernetes runner's to refuse (template/container.ts);
  // here only the images, so anything that is not an allowed image is refused.
  const list = Array.isArray(containers) ? containers : [containers];
  list.forEach((c, i) => {
    const image = typeof c === 'object' && c !== null && !Array.isArray(c) ? c['image'] : undefined;
    if (typeof image === 'string' && images.includes(image)) return;
    const field = `runtime_config.init_containers[${i}].image`;
    throw refused(
      field,
      `${image === undefined ? 'no image' : JSON.stringify(image)} is not an init container image pipelines may use (${allowedText(images)})`,
      'pipeline.initContainerImages',
      images,
    );
  });
}
