import type { FastifyInstance } from 'fastify';
import { SvcError, unknownPipeline } from '../../model/errors.js';
import { selectPipeline } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import type { Op } from '../openapi-ops.js';
import type { NameParams } from './params.js';

// The calls the ecosystem's Python SDK makes that svc does not serve. Each answers 501 NotImplemented
// with a message saying why and what to use instead: a 404 would read like a wrong URL (or a
// missing pipeline), a 405 like a typo in the action. Calls on a pipeline first check that the
// pipeline exists, so a wrong name is still the 404 UnknownPipelineName the SDK expects.

export const notServed = (endpoint: string, why: string): SvcError =>
  new SvcError(501, 'NotImplemented', `${endpoint} is not available in svc: ${why}`, { endpoint });

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const TRANSACTIONS = 'svc applies each step as one atomic change already and has no explicit transactions';
const SYNC = 'checkpoints are kept on the pipeline storage only; svc does not sync them to object storage';
const PROFILE = 'the engine runs SQL in an embedded PostgreSQL; there is no native process to sample';
const NO_TENANTS = 'svc has a single tenant and authenticates with one API key (--api-key)';

/** Under /v0/pipelines/{name}/: method, path, why. */
const PIPELINE_CALLS: ReadonlyArray<[Method, string, string]> = [
  ['POST', 'testing', 'there are no testing hooks in svc'],
  [
    'POST',
    'update_runtime',
    'the runtime is always the platform version (program_config.runtime_version is kept but not used)',
  ],
  ['POST', 'start_transaction', TRANSACTIONS],
  ['POST', 'commit_transaction', TRANSACTIONS],
  ['POST', 'diff', 'svc does not compare a new program with the running one; stop, edit and start'],
  ['POST', 'checkpoint/sync', SYNC],
  ['GET', 'checkpoint/sync_status', SYNC],
  ['GET', 'checkpoints/remote', SYNC],
  ['POST', 'rebalance', 'a pipeline runs on one host; there is nothing to rebalance'],
  ['POST', 'start_compaction', 'the engine stores its state in PostgreSQL tables, which are not compacted on request'],
  ['POST', 'samply_profile', PROFILE],
  ['GET', 'samply_profile', PROFILE],
];

/** Platform calls: method, path under /v0, why. */
const PLATFORM_CALLS: ReadonlyArray<[Method, string, string]> = [
  ['GET', 'api_keys', NO_TENANTS],
  ['POST', 'api_keys', NO_TENANTS],
  ['GET', 'api_keys/:api_key_name', NO_TENANTS],
  ['DELETE', 'api_keys/:api_key_name', NO_TENANTS],
  ['GET', 'tenants', NO_TENANTS],
  ['POST', 'tenants', NO_TENANTS],
  ['GET', 'tenants/:tenant', NO_TENANTS],
  ['PATCH', 'tenants/:tenant', NO_TENANTS],
  ['DELETE', 'tenants/:tenant', NO_TENANTS],
  ['GET', 'oidc_trust', 'svc does not federate identities (OIDC); it authenticates with one API key'],
  ['POST', 'oidc_trust', 'svc does not federate identities (OIDC); it authenticates with one API key'],
  ['GET', 'oidc_trust/:name', 'svc does not federate identities (OIDC); it authenticates with one API key'],
  ['DELETE', 'oidc_trust/:name', 'svc does not federate identities (OIDC); it authenticates with one API key'],
];

const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Their OpenAPI descriptions: each answers 501 (src/api/openapi-ops.ts merges them). */
export function notServedOps(): Record<string, Op> {
  const op = (why: string): Op => ({
    summary: `Not available in svc: ${why}`,
    ok: [501, 'NotImplemented', 'ErrorBody'],
  });
  return Object.fromEntries([
    ...PIPELINE_CALLS.map(([m, p, why]) => [`${m} /v0/pipelines/{pipeline_name}/${p}`, op(why)]),
    ...PLATFORM_CALLS.map(([m, p, why]) => [`${m} /v0/${openApiPath(p)}`, op(why)]),
  ]);
}

export function registerNotServed(app: FastifyInstance, deps: ApiDeps): void {
  for (const [method, path, why] of PIPELINE_CALLS)
    app.route<{ Params: NameParams }>({
      method,
      url: `/v0/pipelines/:pipeline_name/${path}`,
      handler: async (request) => {
        const name = request.params.pipeline_name;
        if (!(await selectPipeline(deps.db, name, 'status'))) throw unknownPipeline(name);
        throw notServed(`pipelines/{name}/${path}`, why);
      },
    });
  for (const [method, path, why] of PLATFORM_CALLS)
    app.route({
      method,
      url: `/v0/${path}`,
      handler: async () => {
        throw notServed(openApiPath(path), why);
      },
    });
}
