import { z } from 'zod';
import { CreatePipelineBody, PatchPipelineBody } from '../model/pipeline-body.js';
import { PipelineRecord } from '../model/pipeline.js';
import { JsonValue } from '../model/json.js';
import { ProgramConfigInput } from '../model/program-config.js';
import { ColumnType, ErrorBodySchema, Field, ProgramError, ProgramInfo, Relation } from '../model/program.js';
import { RuntimeConfigInput } from '../model/runtime-config.js';
import { BootstrapPolicy, Selector, StartInitial } from '../model/status.js';

// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and type
// responses: a field added to a schema appears here with nothing else to edit.

type Param = { name: string; in: 'path' | 'query'; required: boolean; schema: unknown; description?: string };
interface Op {
  summary: string;
  params?: Param[];
  body?: string;
  ok: [number, string, string?];
  errors?: number[];
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const nameParam: Param = { name: 'pipeline_name', in: 'path', required: true, schema: { type: 'string' } };
const q = (name: string, schema: z.ZodType, description: string): Param => ({
  name,
  in: 'query',
  required: false,
  schema: z.toJSONSchema(schema),
  description,
});
const selectorParam = q('selector', Selector, 'Which fields to return (status omits the large ones)');

const action = (summary: string, extra: Param[] = [], ok = 202): Op => ({
  summary,
  params: [nameParam, ...extra],
  ok: [ok, summary, 'String'],
  errors: [400, 404],
});

const OPS: Record<string, Record<string, Op>> = {
  '/v0/pipelines': {
    get: {
      summary: 'List pipelines, ordered by name',
      params: [selectorParam],
      ok: [200, 'Pipelines', 'PipelineList'],
    },
    post: {
      summary: 'Create a pipeline',
      body: 'CreatePipelineBody',
      ok: [201, 'Created', 'PipelineRecord'],
      errors: [400, 409, 413],
    },
  },
  '/v0/pipelines/{pipeline_name}': {
    get: {
      summary: 'Get a pipeline',
      params: [nameParam, selectorParam],
      ok: [200, 'Pipeline', 'PipelineRecord'],
      errors: [400, 404],
    },
    put: {
      summary: 'Create (201) or fully replace (200) a pipeline; a different body name renames it',
      params: [nameParam],
      body: 'CreatePipelineBody',
      ok: [200, 'Replaced', 'PipelineRecord'],
      errors: [400, 409, 413],
    },
    patch: {
      summary: 'Change some top-level fields',
      params: [nameParam],
      body: 'PatchPipelineBody',
      ok: [200, 'Updated', 'PipelineRecord'],
      errors: [400, 404, 409],
    },
    delete: {
      summary: 'Delete a fully stopped pipeline with cleared storage',
      params: [nameParam],
      ok: [200, 'Deleted'],
      errors: [400, 404],
    },
  },
  '/v0/pipelines/{pipeline_name}/start': {
    post: action('Start the pipeline (desired resources status Provisioned)', [
      q('initial', StartInitial, 'Runtime status to reach after provisioning (default running)'),
      q('bootstrap_policy', BootstrapPolicy, 'What to do when the program changed since the last checkpoint'),
      q('dismiss_error', z.enum(['true', 'false']), 'Dismiss a previous deployment error (default true)'),
    ]),
  },
  '/v0/pipelines/{pipeline_name}/stop': {
    post: action('Stop the pipeline; force=true stops at once, otherwise it suspends with a checkpoint first', [
      q('force', z.enum(['true', 'false']), 'Stop without a checkpoint (default false)'),
    ]),
  },
  '/v0/pipelines/{pipeline_name}/clear': { post: action('Clear the storage of a stopped pipeline') },
  '/v0/pipelines/{pipeline_name}/dismiss_error': { post: action('Dismiss the deployment error', [], 200) },
  '/v0/config': { get: { summary: 'Platform configuration and version', ok: [200, 'Configuration'] } },
  '/v0/cluster_healthz': {
    get: { summary: 'Health of the API server, compiler and runner', ok: [200, 'All healthy'], errors: [503] },
  },
};

function operation(op: Op) {
  const [status, description, schema] = op.ok;
  const content = (id: string) => ({ 'application/json': { schema: ref(id) } });
  return {
    summary: op.summary,
    ...(op.params && { parameters: op.params }),
    ...(op.body && { requestBody: { required: true, content: content(op.body) } }),
    responses: {
      [status]: { description, ...(schema && { content: content(schema) }) },
      ...Object.fromEntries(
        (op.errors ?? []).map((code) => [code, { description: 'Error', content: content('ErrorBody') }]),
      ),
    },
  };
}

export function buildOpenApi(version: string): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  registry.add(PipelineRecord, { id: 'PipelineRecord' });
  registry.add(z.array(PipelineRecord), { id: 'PipelineList' });
  registry.add(CreatePipelineBody, { id: 'CreatePipelineBody' });
  registry.add(PatchPipelineBody, { id: 'PatchPipelineBody' });
  registry.add(ErrorBodySchema, { id: 'ErrorBody' });
  registry.add(ColumnType, { id: 'ColumnType' });
  registry.add(Field, { id: 'Field' });
  registry.add(z.string(), { id: 'String' });
  registry.add(RuntimeConfigInput, { id: 'RuntimeConfig' });
  registry.add(ProgramConfigInput, { id: 'ProgramConfig' });
  registry.add(ProgramError, { id: 'ProgramError' });
  registry.add(ProgramInfo, { id: 'ProgramInfo' });
  registry.add(Relation, { id: 'Relation' });
  registry.add(JsonValue, { id: 'JsonValue' });
  const generated = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  });
  const schemas = asComponents(generated.schemas);
  const paths = Object.fromEntries(
    Object.entries(OPS).map(([path, ops]) => [
      path,
      Object.fromEntries(Object.entries(ops).map(([method, op]) => [method, operation(op)])),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'svc pipeline manager API', version },
    components: {
      schemas,
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
