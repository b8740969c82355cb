import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

// The console is built by `npm run build` after tsc, into dist/web (served at / by src/api/console.ts).
// Its runtime_config form is generated from the JSON Schema of the very zod schema the API validates
// with (zod 4's z.toJSONSchema), made here at build time from the compiled model in dist/: the console
// bundles the schema, not zod.

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const SCHEMA_ID = 'virtual:runtime-config-schema';

type Spelling = readonly [newer: string, seed: string];
interface ModelModules {
  zod: { z: { toJSONSchema: (schema: unknown, opts: object) => Record<string, unknown> } };
  runtimeConfig: { RuntimeConfigInput: unknown; TOP_LEVEL_SPELLINGS: readonly Spelling[] };
  parts: Record<'FAULT_TOLERANCE_SPELLINGS' | 'RESOURCES_SPELLINGS' | 'STORAGE_SPELLINGS', readonly Spelling[]>;
  descriptions: { CONFIG_DESCRIPTIONS: Readonly<Record<string, string>> };
}

async function loadModel(): Promise<ModelModules> {
  const load = (file: string) => import(`${DIST}model/${file}`);
  return {
    zod: (await import('zod')) as ModelModules['zod'],
    runtimeConfig: await load('runtime-config.js'),
    parts: await load('runtime-config-parts.js'),
    descriptions: await load('config-descriptions.js'),
  };
}

function runtimeConfigSchema(): Plugin {
  return {
    name: 'runtime-config-schema',
    resolveId: (id) => (id === SCHEMA_ID ? `\0${SCHEMA_ID}` : undefined),
    load: {
      filter: { id: new RegExp(`^\0${SCHEMA_ID}$`) },
      handler: async () => {
        const { zod, runtimeConfig, parts, descriptions } = await loadModel();
        const schema = zod.z.toJSONSchema(runtimeConfig.RuntimeConfigInput, { io: 'input', unrepresentable: 'any' });
        // The newer duration and size spellings are the same members again: the form shows the seed's.
        const newer = [
          ...runtimeConfig.TOP_LEVEL_SPELLINGS,
          ...parts.FAULT_TOLERANCE_SPELLINGS,
          ...parts.RESOURCES_SPELLINGS,
          ...parts.STORAGE_SPELLINGS,
        ].map(([n]) => n);
        const descriptionsOf = Object.fromEntries(
          Object.entries(descriptions.CONFIG_DESCRIPTIONS)
            .filter(([k]) => k.startsWith('runtime_config.'))
            .map(([k, v]) => [k.slice('runtime_config.'.length), v]),
        );
        return [
          `export const schema = ${JSON.stringify(schema)};`,
          `export const newerSpellings = ${JSON.stringify(newer)};`,
          `export const descriptions = ${JSON.stringify(descriptionsOf)};`,
        ].join('\n');
      },
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [runtimeConfigSchema()],
  build: {
    outDir: `${DIST}web`,
    emptyOutDir: true,
    // CodeMirror and uPlot make one chunk of ~600 kB before gzip; it is the whole console.
    chunkSizeWarningLimit: 1500,
    // Loading the compiled model for the schema takes a second; that is expected, not worth a warning.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
