import { z } from 'zod';
import { CreatePipelineBody, PatchPipelineBody } from '../model/pipeline-body.js';
import { PipelineRecord } from '../model/pipeline.js';
import { JsonValue } from '../model/json.js';
import { ProgramConfigInput } from '../model/program-config.js';
import { ColumnType, ErrorBodySchema, Field, ProgramError, ProgramInfo, Relation } from '../model/program.js';
import { RuntimeConfigInput } from '../model/runtime-config.js';
import { CLOCK_ADVANCED, CLUSTER_HEALTH, CONFIG_RESPONSE, NOT_ENDPOINTS, type Op, OPS } from './openapi-ops.js';
import { ClockAdvanceBody } from './routes/pipeline-forward.js';
import { CompletionAnswer, IngressAnswer } from '../model/data-queries.js';

// The OpenAPI 3.1 document. Its paths are the routes the router serves (collected as they are
// registered), each described by its entry in openapi-ops.ts; its schemas are generated from the
// same zod schemas that validate requests and type responses.

/** A route as fastify registers it. */
export interface RouteInfo {
  method: string;
  url: string;
}

/** `/v0/pipelines/:pipeline_name` → `/v0/pipelines/{pipeline_name}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** "METHOD path" of every documented operation of these routes (HEAD is fastify's own copy of GET). */
export function operationKeys(routes: readonly RouteInfo[]): string[] {
  const keys = routes
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
    .map((r) => `${r.method} ${openApiPath(r.url)}`)
    .filter((key) => !NOT_ENDPOINTS.has(key));
  return [...new Set(keys)].sort();
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const content = (schema: string) =>
  schema.includes('/') ? { [schema]: { schema: { type: 'string' } } } : { 'application/json': { schema: ref(schema) } };

function queryParams(query: Op['query']) {
  if (!query) return [];
  const list = Array.isArray(query)
    ? query
    : Object.entries(query.shape).map(([name, schema]) => ({ name, schema: schema as z.ZodType, description: '' }));
  return list.map(({ name, schema, description }) => ({
    name,
    in: 'query',
    required: false,
    schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
    ...(description && { description }),
  }));
}

/** An operation without an entry in OPS: described from the route alone. */
const generic = (path: string): Op => ({
  summary: path.startsWith('/v0/pipelines/{pipeline_name}/')
    ? 'Forwarded to the pipeline process'
    : 'No description yet',
  ok: [200, 'OK', 'JsonValue'],
  errors: [400, 404, 503],
});

function operation(path: string, op: Op) {
  const [status, description, schema] = op.ok;
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [...pathParams, ...queryParams(op.query)];
  return {
    summary: op.summary,
    ...(parameters.length > 0 && { parameters }),
    ...(op.body && { requestBody: { required: true, content: content(op.body) } }),
    responses: {
      [status]: { description, ...(schema && { content: content(schema) }) },
      ...Object.fromEntries(
        (op.errors ?? []).map((code) => [code, { description: 'Error', content: content('ErrorBody') }]),
      ),
    },
  };
}

function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const named: Array<[z.ZodType, string]> = [
    [PipelineRecord, 'PipelineRecord'],
    [z.array(PipelineRecord), 'PipelineList'],
    [CreatePipelineBody, 'CreatePipelineBody'],
    [PatchPipelineBody, 'PatchPipelineBody'],
    [ErrorBodySchema, 'ErrorBody'],
    [ColumnType, 'ColumnType'],
    [Field, 'Field'],
    [z.string(), 'String'],
    [RuntimeConfigInput, 'RuntimeConfig'],
    [ProgramConfigInput, 'ProgramConfig'],
    [ProgramError, 'ProgramError'],
    [ProgramInfo, 'ProgramInfo'],
    [Relation, 'Relation'],
    [JsonValue, 'JsonValue'],
    [ClockAdvanceBody, 'ClockAdvanceBody'],
    [CLOCK_ADVANCED, 'ClockAdvanced'],
    [CONFIG_RESPONSE, 'ConfigResponse'],
    [CLUSTER_HEALTH, 'ClusterHealth'],
    [IngressAnswer, 'IngressAnswer'],
    [CompletionAnswer, 'CompletionAnswer'],
  ];
  for (const [schema, id] of named) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  });
  return asComponents(generated.schemas);
}

export function buildOpenApi(version: string, routes: readonly RouteInfo[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const key of operationKeys(routes)) {
    const [method = '', path = ''] = key.split(' ');
    (paths[path] ??= {})[method.toLowerCase()] = operation(path, OPS[key] ?? generic(path));
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc pipeline manager API', version },
    components: {
      schemas: componentSchemas(),
      securitySchemes: { ApiKey: { type: 'http', scheme: 'bearer' } },
    },
    security: [{}, { ApiKey: [] }],
    paths,
  };
}

/**
 * zod writes each registered schema as a standalone JSON Schema (`$id`, `$schema`) and any schema
 * used twice without a name under `__shared`. In an OpenAPI document every schema is a component:
 * drop the standalone markers and hoist the shared definitions, rewriting their references.
 */
function asComponents(generated: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const { __shared: shared, ...named } = generated;
  const hoisted = (shared?.['$defs'] ?? {}) as Record<string, unknown>;
  const all: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries({ ...named, ...hoisted })) {
    const { $id: _id, $schema: _schema, ...rest } = schema as Record<string, unknown>;
    all[id] = rest;
  }
  const text = JSON.stringify(all).replaceAll('#/components/schemas/__shared#/$defs/', '#/components/schemas/');
  return JSON.parse(text) as Record<string, unknown>;
}
