import { z } from 'zod';
import { AdhocQuery, CompletionQuery, EgressQuery, IngressQuery } from '../model/data-queries.js';
import { StartInitial } from '../model/status.js';
import { StartQuery, StopQuery } from './routes/pipeline-actions.js';
import { notServedOps } from './routes/not-served.js';
import { SelectorQuery } from './routes/params.js';

// What the OpenAPI document says about each operation the router serves, keyed by "METHOD path"
// (path in OpenAPI form). The list of operations itself comes from the router (src/api/openapi.ts),
// so a route added without an entry here still appears, with a generic description; an entry here
// without a route fails the test that compares the two (test/api/openapi.test.ts).

/** A response: status, description, and a component schema id or a media type for non-JSON bodies. */
export interface Op {
  summary: string;
  /** Query parameters: the route's own zod schema of them, or given one by one. */
  query?: z.ZodObject | Array<{ name: string; schema: z.ZodType; description: string }>;
  body?: string;
  ok: [number, string, string?];
  errors?: number[];
}

/** Ids of the component schemas the operations name (registered in openapi.ts). */
export const CONFIG_RESPONSE = z.object({
  version: z.string(),
  edition: z.string(),
  revision: z.string(),
  changelog_url: z.string(),
  telemetry: z.string(),
  license_validity: z.null(),
  update_info: z.null(),
});
const part = z.object({
  healthy: z.boolean(),
  message: z.string(),
  checked_at: z.iso.datetime(),
  unchanged_since: z.iso.datetime(),
});
export const CLUSTER_HEALTH = z.object({ all_healthy: z.boolean(), api: part, compiler: part, runner: part });
export const CLOCK_ADVANCED = z.object({ now_ms: z.int(), now: z.string() });

const TEXT = 'text/plain';
const action = (summary: string, ok = 202, query?: Op['query']): Op => ({
  summary,
  ...(query && { query }),
  ok: [ok, summary, 'String'],
  errors: [400, 404],
});
const forwarded = (summary: string, schema = 'JsonValue', query?: Op['query']): Op => ({
  summary: `${summary} (forwarded to the pipeline process)`,
  ...(query && { query }),
  ok: [200, 'The pipeline process answered', schema],
  errors: [404, 503],
});

export const OPS: Record<string, Op> = {
  'GET /v0/pipelines': {
    summary: 'List pipelines, ordered by name',
    query: SelectorQuery,
    ok: [200, 'Pipelines', 'PipelineList'],
    errors: [400],
  },
  'POST /v0/pipelines': {
    summary: 'Create a pipeline',
    body: 'CreatePipelineBody',
    ok: [201, 'Created', 'PipelineRecord'],
    errors: [400, 409, 413],
  },
  'GET /v0/pipelines/{pipeline_name}': {
    summary: 'Get a pipeline',
    query: SelectorQuery,
    ok: [200, 'Pipeline', 'PipelineRecord'],
    errors: [400, 404],
  },
  'PUT /v0/pipelines/{pipeline_name}': {
    summary: 'Create (201) or fully replace (200) a pipeline; a different body name renames it',
    body: 'CreatePipelineBody',
    ok: [200, 'Replaced', 'PipelineRecord'],
    errors: [400, 409, 413],
  },
  'PATCH /v0/pipelines/{pipeline_name}': {
    summary: 'Change some top-level fields',
    body: 'PatchPipelineBody',
    ok: [200, 'Updated', 'PipelineRecord'],
    errors: [400, 404, 409],
  },
  'DELETE /v0/pipelines/{pipeline_name}': {
    summary: 'Delete a fully stopped pipeline with cleared storage',
    ok: [200, 'Deleted'],
    errors: [400, 404],
  },
  'POST /v0/pipelines/{pipeline_name}/start': action(
    'Start the pipeline (desired resources status Provisioned)',
    202,
    StartQuery,
  ),
  'POST /v0/pipelines/{pipeline_name}/stop': action(
    'Stop the pipeline; force=true stops at once, otherwise it suspends with a checkpoint first',
    202,
    StopQuery,
  ),
  'POST /v0/pipelines/{pipeline_name}/clear': action('Clear the storage of a stopped pipeline'),
  'POST /v0/pipelines/{pipeline_name}/dismiss_error': action('Dismiss the deployment error', 200),
  'POST /v0/pipelines/{pipeline_name}/pause': forwarded('Pause the running pipeline'),
  'POST /v0/pipelines/{pipeline_name}/resume': forwarded('Resume the paused pipeline'),
  'POST /v0/pipelines/{pipeline_name}/activate': forwarded('Activate a standby pipeline', 'JsonValue', [
    { name: 'initial', schema: StartInitial, description: 'Runtime status to reach' },
  ]),
  'POST /v0/pipelines/{pipeline_name}/approve': forwarded('Approve a bootstrap that awaits approval'),
  'POST /v0/pipelines/{pipeline_name}/checkpoint': forwarded('Take a checkpoint now'),
  'GET /v0/pipelines/{pipeline_name}/stats': forwarded('Statistics of the running pipeline'),
  'GET /v0/pipelines/{pipeline_name}/tables/{relation}/connectors/{connector}/completion_token': forwarded(
    'A completion token covering what the input connector has ingested so far (pass it to completion_status); 404 UnknownConnector',
  ),
  'GET /v0/pipelines/{pipeline_name}/metrics': forwarded('Prometheus metrics of the pipeline', TEXT, [
    { name: 'format', schema: z.enum(['prometheus', 'json']), description: 'prometheus (text/plain) or json' },
  ]),
  'POST /v0/pipelines/{pipeline_name}/ingress/{table}': {
    summary:
      'Push records into a table: JSON events (one a line, or one array with array=true) or CSV; answers a completion token',
    query: IngressQuery,
    body: 'JsonValue',
    ok: [200, 'Taken: the completion token of this request', 'IngressAnswer'],
    errors: [400, 404, 503],
  },
  'POST /v0/pipelines/{pipeline_name}/egress/{view}': {
    summary:
      'Stream the changes of a view: one JSON chunk a line ({sequence_number, json_data | text_data, processed_steps})',
    query: EgressQuery,
    ok: [200, 'A chunked stream that stays open', 'application/x-ndjson'],
    errors: [400, 404, 503],
  },
  'GET /v0/pipelines/{pipeline_name}/query': {
    summary: 'Run an ad-hoc SELECT over the materialized tables and views',
    query: AdhocQuery,
    ok: [200, 'The result in the asked format', TEXT],
    errors: [400, 404, 503],
  },
  'GET /v0/pipelines/{pipeline_name}/completion_status': {
    summary: 'Whether the input a completion token covers has been processed and sent (202 while in progress)',
    query: CompletionQuery,
    ok: [200, 'Complete (202: inprogress)', 'CompletionAnswer'],
    errors: [400, 404, 410, 503],
  },
  'GET /v0/pipelines/{pipeline_name}/logs': {
    summary: "Follow the pipeline process's log lines (chunked text, one line per log record)",
    ok: [200, 'The log, followed until the deployment ends or the client leaves', TEXT],
    errors: [404, 503],
  },
  'POST /v0/pipelines/{pipeline_name}/clock/advance': {
    summary: 'Move NOW() forward by delta_ms (only with dev_tweaks.now_http_driven)',
    body: 'ClockAdvanceBody',
    ok: [200, 'The new NOW()', 'ClockAdvanced'],
    errors: [400, 404, 503],
  },
  'GET /v0/config': { summary: 'Platform configuration and version', ok: [200, 'Configuration', 'ConfigResponse'] },
  'GET /v0/cluster_healthz': {
    summary: 'Health of the API server, compiler and runner (503 when one is unhealthy)',
    ok: [200, 'All healthy', 'ClusterHealth'],
    errors: [503],
  },
  'GET /v0/openapi.json': { summary: 'This document', ok: [200, 'OpenAPI 3.1', 'JsonValue'] },
  'GET /healthz': { summary: 'Liveness', ok: [200, 'Alive', 'JsonValue'] },
  'GET /readyz': { summary: 'Readiness: the database answers', ok: [200, 'Ready', 'JsonValue'], errors: [503] },
  'GET /metrics': { summary: "Prometheus metrics of this process (the manager's own)", ok: [200, 'Metrics', TEXT] },
  ...notServedOps(),
};

/**
 * Routes that are not endpoints: the catch-all that answers 405 UnsupportedPipelineAction for an
 * action the API does not have. Left out of the document (a client generator would make a method of it).
 */
export const NOT_ENDPOINTS = new Set(['POST /v0/pipelines/{pipeline_name}/{action}']);
