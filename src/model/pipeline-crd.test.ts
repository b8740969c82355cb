import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pipelineCrdYaml } from '../../scripts/crd-yaml.js';
import { CRD_FILE, pipelineCrd } from './pipeline-crd.js';
import { isObject } from './json.js';
import { PipelineResourceSpec } from './pipeline-resource.js';
import { toStructural, type Schema } from './structural-schema.js';

// The chart's CRD is generated from the REST API's zod schemas; these keep it so.

const root = new URL('../../', import.meta.url);

/** Every node of a schema with its path. */
function* nodes(node: Schema, path = '$'): Generator<[string, Schema]> {
  yield [path, node];
  for (const [name, child] of Object.entries((node['properties'] as Record<string, Schema> | undefined) ?? {})) {
    yield* nodes(child, `${path}.${name}`);
  }
  if (isObject(node['items'])) yield* nodes(node['items'], `${path}[]`);
  if (isObject(node['additionalProperties'])) yield* nodes(node['additionalProperties'], `${path}{}`);
}

const openApi = (): Schema => {
  const version = (pipelineCrd()['spec'] as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }).versions[0];
  if (!version) throw new Error('no version');
  return version.schema.openAPIV3Schema;
};

describe('the Pipeline CRD', () => {
  it('is the chart file byte for byte (run `npm run chart:crd` after changing the schemas)', () => {
    expect(readFileSync(new URL(CRD_FILE, root), 'utf8')).toBe(pipelineCrdYaml());
  });

  it('is a structural schema: one type per field (the API server exempts no untyped field), no $ref, no unions', () => {
    for (const [path, node] of nodes(openApi())) {
      const typed = typeof node['type'] === 'string' || node['x-kubernetes-int-or-string'] === true;
      expect({ path, typed }).toEqual({ path, typed: true });
      for (const banned of ['$ref', '$defs', 'anyOf', 'oneOf', 'allOf', 'const', 'propertyNames', '$schema']) {
        expect({ path, banned, has: banned in node }).toEqual({ path, banned, has: false });
      }
      expect({ path, both: 'properties' in node && 'additionalProperties' in node }).toEqual({ path, both: false });
      expect({ path, nullType: node['type'] === 'null' }).toEqual({ path, nullType: false });
    }
  });

  it('carries the REST rules: bounds, enums, patterns and required members', () => {
    const spec = (openApi()['properties'] as Record<string, Schema>)['spec'] as Schema;
    const props = spec['properties'] as Record<string, Schema>;
    expect(props['description']).toMatchObject({ type: 'string', maxLength: 300, nullable: true });
    expect((props['program'] as Schema)['required']).toEqual(['sql']);
    expect(props['desired_state']).toMatchObject({ enum: ['Running', 'Paused', 'Stopped', 'Suspended'] });
    const rc = props['runtime_config'] as Schema;
    expect((rc['properties'] as Record<string, Schema>)['workers']).toMatchObject({ type: 'integer', minimum: 1 });
    expect(spec['additionalProperties']).toBeUndefined();
  });

  it('turns the JSON Schema forms Kubernetes refuses into structural ones', () => {
    expect(toStructural({ anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] })).toEqual({
      type: 'integer',
      minimum: 0,
      nullable: true,
    });
    // A member of several types leaves `properties`; its object keeps it as an unknown member.
    expect(
      toStructural({ type: 'object', properties: { size: { type: ['string', 'number'] }, n: { type: 'integer' } } }),
    ).toEqual({ type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-preserve-unknown-fields': true });
    expect(toStructural({ type: 'number', exclusiveMinimum: 0 })).toEqual({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
    });
    expect(
      toStructural({ type: 'object', properties: { a: { const: 'x', type: 'string' } }, additionalProperties: {} }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string', enum: ['x'] } },
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(toStructural({ type: 'object', additionalProperties: false, properties: {} })).toEqual({
      type: 'object',
      properties: {},
    });
  });

  it('accepts a spec with the defaults filled in as the controller reads it', () => {
    expect(PipelineResourceSpec.parse({ program: { sql: 'CREATE TABLE t (x INT);' } })).toMatchObject({
      desired_state: 'Running',
      storage_on_delete: 'Keep',
    });
  });
});
