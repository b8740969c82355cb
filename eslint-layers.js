import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The one-way layers of docs/architecture.md, checked on every relative import under src/. A room
// is a folder of src/ (or a file at its top, such as config.ts); each names the rooms it may import
// from. Anything not listed is refused, so an import against the flow, or a new room nobody placed
// yet, fails `npm run lint`. Tests next to the code obey the rules of their room.

/** Room → the rooms it may import. Lower rooms come first; nothing imports upwards. */
export const LAYERS = {
  // Pure: types, schemas, rules. No I/O.
  model: [],
  lifecycle: ['model'],
  // Shared rooms, named for what they are: used by several of the rooms above them.
  logging: ['model'],
  version: [],
  'node-version': [],
  config: ['model'],
  sql: ['model'],
  pglite: ['model'],
  heap: [],
  http: ['model', 'logging'],
  // The database.
  store: ['model', 'lifecycle', 'logging', 'pglite'],
  // The data path: the engine, the wire formats and the connectors sit below the pipeline process
  // (and the compiler, which checks a program's connectors), beside the control plane.
  engine: ['model', 'logging', 'sql', 'pglite', 'heap'],
  formats: ['model', 'engine'],
  connectors: ['model', 'logging', 'http', 'sql', 'engine', 'formats'],
  // The components.
  api: ['model', 'lifecycle', 'logging', 'version', 'http', 'store'],
  compiler: ['model', 'lifecycle', 'logging', 'version', 'http', 'sql', 'pglite', 'store', 'connectors'],
  runner: ['model', 'lifecycle', 'logging', 'version', 'config', 'http', 'pglite', 'heap', 'store'],
  pipeline: ['model', 'logging', 'version', 'config', 'http', 'sql', 'engine', 'formats', 'connectors'],
  // The entry points.
  commands: ['model', 'logging', 'version', 'config', 'http', 'store', 'api', 'compiler', 'runner'],
  cli: ['model', 'logging', 'version', 'node-version', 'heap', 'config', 'commands', 'pipeline'],
};

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src');

/** The room of a file under src/, or undefined outside src/. */
function roomOf(file) {
  const rel = path.relative(SRC, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const [head, ...rest] = rel.split(path.sep);
  return rest.length === 0 ? head.replace(/\.(test\.)?[jt]s$/, '') : head;
}

const oneWay = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports between the rooms of src/ flow one way (docs/architecture.md).' },
    schema: [],
    messages: {
      against: "'{{from}}' may not import from '{{to}}' (allowed: {{allowed}}). See docs/architecture.md.",
      unplaced: "'{{from}}' is not a room of eslint-layers.js: place it in LAYERS.",
    },
  },
  create(context) {
    const file = path.resolve(context.filename);
    const from = roomOf(file);
    if (from === undefined) return {};
    const check = (node) => {
      const spec = node?.type === 'Literal' ? node.value : undefined;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = roomOf(path.resolve(path.dirname(file), spec));
      if (to === undefined || to === from) return;
      const allowed = LAYERS[from];
      if (!allowed) return context.report({ node, messageId: 'unplaced', data: { from } });
      if (!allowed.includes(to)) {
        context.report({ node, messageId: 'against', data: { from, to, allowed: allowed.join(', ') || 'none' } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export const layersPlugin = { rules: { 'one-way': oneWay } };
