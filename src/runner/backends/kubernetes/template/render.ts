import type { V1StatefulSet } from '@kubernetes/client-node';
import { loadAll, YAMLException } from 'js-yaml';
import { templateError, type TemplateSource } from './errors.js';
import { checkValues, type PlaceholderValues, substitute } from './placeholders.js';
import { isObject } from '../../../../model/json.js';

// Seed 2.6.3 / KUBERNETES.md "Pipeline template": check the values, substitute, parse, and accept
// exactly one apps/v1 StatefulSet. Every failure is a TemplateError naming the config map and key.

export interface TemplateText extends TemplateSource {
  text: string;
}

/**
 * Aliases are legal YAML, but a custom template can be written by a user (when the chart allows it),
 * and a few nested aliases expand to billions of nodes once the object is copied or serialised.
 */
const MAX_ALIASES = 100;
/** Far more nodes than any real StatefulSet has; the walk stops as soon as it is passed. */
const MAX_NODES = 100_000;

type JsonObject = Record<string, unknown>;

export function renderTemplate(source: TemplateText, values: PlaceholderValues): V1StatefulSet {
  const where: TemplateSource = { configMap: source.configMap, key: source.key };
  checkValues(where, values);
  const docs = parse(where, substitute(source.text, values));
  // `---` with nothing after it yields an empty (null) document; it carries nothing, so it is not counted.
  const present = docs.filter((d) => d !== null && d !== undefined);
  if (present.length !== 1) {
    throw templateError(where, `expected exactly one YAML document (a StatefulSet), found ${present.length}`);
  }
  const doc = present[0];
  if (!isObject(doc)) throw templateError(where, 'the document is not a mapping');
  if (countNodes(doc, MAX_NODES) > MAX_NODES) {
    throw templateError(where, `the document is too large (more than ${MAX_NODES} nodes once aliases expand)`);
  }
  checkShape(where, doc);
  // A JSON round trip gives a plain tree: aliases become copies, so completing one container can
  // never change another that shared its node.
  return JSON.parse(JSON.stringify(doc)) as V1StatefulSet;
}

function parse(where: TemplateSource, text: string): unknown[] {
  try {
    return loadAll(text, { maxAliases: MAX_ALIASES });
  } catch (e) {
    // js-yaml documents that it may throw more than YAMLException ("all exceptions MUST be caught").
    if (e instanceof YAMLException) {
      const line = e.mark ? e.mark.line + 1 : undefined;
      throw templateError(where, `invalid YAML: ${e.reason}`, line);
    }
    throw templateError(where, `invalid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function checkShape(where: TemplateSource, doc: JsonObject): void {
  if (doc.apiVersion !== 'apps/v1' || doc.kind !== 'StatefulSet') {
    throw templateError(
      where,
      `expected apiVersion apps/v1, kind StatefulSet; found apiVersion ${describe(doc.apiVersion)}, ` +
        `kind ${describe(doc.kind)}`,
    );
  }
  if (doc.metadata !== undefined && doc.metadata !== null && !isObject(doc.metadata)) {
    throw templateError(where, 'metadata is not a mapping');
  }
  const spec = doc.spec;
  const podSpec = isObject(spec) && isObject(spec.template) ? spec.template.spec : undefined;
  if (!isObject(podSpec)) throw templateError(where, 'spec.template.spec is missing or not a mapping');
  const containers = podSpec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    throw templateError(where, 'spec.template.spec.containers must be a non-empty list');
  }
  containers.forEach((c, i) => {
    if (!isObject(c)) throw templateError(where, `spec.template.spec.containers[${i}] is not a mapping`);
  });
}

const describe = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v));

/** Nodes reachable from `value`, counting shared (aliased) nodes each time; stops past `limit`. */
function countNodes(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const v = stack.pop();
    count++;
    // One push per child: spreading a long list into push() would overflow the argument limit.
    const children = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
    for (const child of children) stack.push(child);
  }
  return count;
}
