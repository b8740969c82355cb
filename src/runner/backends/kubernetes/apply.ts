import * as k8s from '@kubernetes/client-node';
import { FIELD_MANAGER } from './names.js';

// Server-side apply without the generated client. The client serialises the body and decodes the
// answer through its model classes, and sends both through fetch; for the 5 applies of each
// deployment that was most of the runner's CPU while a wave of pipelines started, and the first
// pods' Ready events waited behind it. Here: the same request (PATCH, apply-patch content type,
// field manager, force) through the same pooled connection and credentials, the answer JSON.parsed.

/** What the runner reads of an applied object. */
export interface Applied {
  metadata?: { uid?: string };
}

/** Applies `body` at `path` (e.g. /apis/apps/v1/namespaces/ns/statefulsets/name); errors are ApiExceptions. */
export async function serverSideApply(config: k8s.KubeConfig, path: string, body: object): Promise<Applied> {
  const query = `fieldManager=${encodeURIComponent(FIELD_MANAGER)}&force=true`;
  return (await rawPatch(config, path, query, 'application/apply-patch+yaml', body)) as Applied;
}

/** One PATCH of `body` with the given content type (apply, merge); the answer JSON.parsed. */
export async function rawPatch(
  config: k8s.KubeConfig,
  path: string,
  query: string,
  contentType: string,
  body: object,
): Promise<unknown> {
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(`${path}${query ? `?${query}` : ''}`, server);
  const context = new k8s.RequestContext(url.toString(), k8s.HttpMethod.PATCH);
  // Credentials (tokens, exec plugins) and the pooled connection, as for every other request.
  await config.applySecurityAuthentication(context);
  const dispatcher = context.getDispatcher();
  if (!dispatcher) throw new Error('no connection pool for the API server');
  const res = await dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'PATCH',
    headers: { ...context.getHeaders(), 'content-type': contentType, accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    const headers = Object.fromEntries(
      Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    throw new k8s.ApiException(res.statusCode, `HTTP ${res.statusCode} from PATCH ${url.pathname}`, text, headers);
  }
  return JSON.parse(text) as unknown;
}
