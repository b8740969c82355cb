import { isObject } from './json.js';

// zod's JSON Schema (draft 2020-12) → a Kubernetes *structural* OpenAPI v3 schema, the form a CRD
// must declare (apiextensions "Specifying a structural schema"). The rules Kubernetes adds:
// - every node has one `type` (or says it preserves unknown fields / takes any value);
// - no `$ref`/`$defs`, no `propertyNames`, no `const`, no draft-2020 numeric `exclusiveMinimum`;
// - `null` is `nullable: true`, not a type;
// - `properties` and `additionalProperties` do not mix: an object that keeps members it does not
//   know (zod's loose objects, `additionalProperties: {}`) says `x-kubernetes-preserve-unknown-fields`.
// Kubernetes has no untyped fields (x-kubernetes-preserve-unknown-fields does not exempt a field from
// its type; the API server refuses such a CRD). A member whose JSON Schema allows several types (a
// size as `"4Gi"` or `4096`, `storage: true | {…}`, any JSON value) is therefore left out of its
// object's `properties`, and that object keeps unknown members: the value passes unpruned, and the
// zod schema itself, which the controller runs on every spec, checks it. The API server refuses all
// it can express, the controller the rest; neither refuses what PUT accepts.

export type Schema = { [key: string]: unknown };

const ANY: Schema = { 'x-kubernetes-preserve-unknown-fields': true };
const DROPPED = new Set(['$schema', '$defs', '$id', 'propertyNames', 'id']);

const typesOf = (node: Schema): string[] => {
  const type = node['type'];
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
};

/** The branches of an `anyOf`/`oneOf` other than `{type: "null"}`, and whether null was one. */
function branches(node: Schema): { rest: Schema[]; nullable: boolean } | undefined {
  const list = node['anyOf'] ?? node['oneOf'];
  if (!Array.isArray(list)) return undefined;
  const all = list.filter(isObject) as Schema[];
  const rest = all.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
  return { rest, nullable: rest.length < all.length };
}

const withNull = (schema: Schema, nullable: boolean): Schema => (nullable ? { ...schema, nullable: true } : schema);

/** A node that takes any value: not expressible as a typed field (see above). */
const isAny = (schema: Schema): boolean =>
  schema['type'] === undefined && schema['x-kubernetes-preserve-unknown-fields'] === true;

export function toStructural(node: Schema): Schema {
  if (typeof node['$ref'] === 'string') return { ...ANY }; // only z.json() recurses; it is any value
  const union = branches(node);
  if (union) {
    const [only] = union.rest;
    if (union.rest.length === 1 && only) return withNull(toStructural(only), union.nullable);
    return withNull({ ...ANY }, union.nullable);
  }
  const types = typesOf(node);
  const nullable = types.includes('null');
  const real = types.filter((t) => t !== 'null');
  if (real.length !== 1) return withNull({ ...ANY }, nullable);
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (!DROPPED.has(key)) Object.assign(out, member(node, key, value));
  }
  out['type'] = real[0];
  return withNull(out, nullable);
}

/** One member of a typed node, as the structural schema says it. */
function member(node: Schema, key: string, value: unknown): Schema {
  switch (key) {
    case 'const':
      return { enum: [value] };
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return typeof value === 'number'
        ? { [key === 'exclusiveMinimum' ? 'minimum' : 'maximum']: value, [key]: true }
        : {};
    case 'properties':
      return properties(value as Record<string, Schema>);
    case 'items': {
      const items = isObject(value) ? toStructural(value) : { ...ANY };
      if (isAny(items)) throw new Error('an array of values of any type has no structural schema');
      return { items };
    }
    case 'additionalProperties':
      return additional(node, value);
    default:
      return { [key]: value };
  }
}

/** Typed members stay; a member of any type goes, and its object keeps unknown members instead. */
function properties(members: Record<string, Schema>): Schema {
  const children = Object.entries(members).map(([name, child]) => [name, toStructural(child)] as const);
  const typed = children.filter(([, child]) => !isAny(child));
  return {
    properties: Object.fromEntries(typed),
    ...(typed.length < children.length && { 'x-kubernetes-preserve-unknown-fields': true }),
  };
}

/** A map (a record) keeps its value schema; an object that keeps unknown members says so. */
function additional(node: Schema, value: unknown): Schema {
  if (value === false) return {};
  if (isObject(value) && Object.keys(value).length > 0 && !node['properties']) {
    const values = toStructural(value);
    if (!isAny(values)) return { additionalProperties: values };
  }
  return { 'x-kubernetes-preserve-unknown-fields': true };
}
