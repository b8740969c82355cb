import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_ENDPOINTS, OPS } from '../../src/api/openapi-ops.js';
import { openApiPath } from '../../src/api/openapi.js';
import { type Harness, startHarness } from '../support/api-harness.js';

// /v0/openapi.json lists every endpoint the service answers (issue 17): the router's own listing of
// its routes (fastify's printRoutes tree, a source independent of the hook that builds the document)
// is compared with the document's paths, and every documented entry still has a route.

/** "METHOD /path" for each route in fastify's printRoutes tree (indent: 4 characters per level). */
function routerOperations(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = [...(m[1] ?? '')].length / 4;
    stack.length = depth;
    stack.push(m[2] ?? '');
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()))
      if (method && method !== 'HEAD') out.push(`${method} ${openApiPath(stack.join(''))}`);
  }
  return out.filter((key) => !NOT_ENDPOINTS.has(key)).sort();
}

describe('the OpenAPI document and the router', () => {
  let h: Harness;
  let doc: { paths: Record<string, Record<string, { summary: string; responses: object }>> };
  beforeAll(async () => {
    h = await startHarness('pglite');
    doc = (await h.request('GET', '/v0/openapi.json')).body;
  });
  afterAll(async () => h.close());

  const documented = () =>
    Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();

  it('lists exactly the operations the router serves', () => {
    const routes = routerOperations(h.printRoutes());
    // The parser found the tree (a silent empty parse would make the comparison vacuous).
    expect(routes).toEqual(expect.arrayContaining(['GET /v0/pipelines', 'POST /v0/pipelines/{pipeline_name}/pause']));
    expect(documented()).toEqual(routes);
  });

  it('has no description left over from a route that is gone', () => {
    const routes = new Set(routerOperations(h.printRoutes()));
    expect(Object.keys(OPS).filter((key) => !routes.has(key))).toEqual([]);
  });

  it('describes each operation: path parameters, request and response schemas', () => {
    const start = doc.paths['/v0/pipelines/{pipeline_name}/start']?.['post'] as unknown as {
      parameters: Array<{ name: string; in: string }>;
    };
    expect(start.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:pipeline_name',
      'query:initial',
      'query:bootstrap_policy',
      'query:dismiss_error',
    ]);
    const advance = doc.paths['/v0/pipelines/{pipeline_name}/clock/advance']?.['post'] as unknown as {
      requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
    };
    expect(advance.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ClockAdvanceBody');
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
  });
});
