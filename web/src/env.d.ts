/// <reference types="vite/client" />

declare module 'virtual:runtime-config-schema' {
  import type { JsonSchema } from './lib/json-schema.ts';
  /** z.toJSONSchema of the API's RuntimeConfigInput (input side), made at build time. */
  export const schema: JsonSchema;
  /** The newer duration/size spellings of members the form shows in the seed's spelling. */
  export const newerSpellings: readonly string[];
  /** Member path (e.g. `fault_tolerance.model`) → what it means. */
  export const descriptions: Readonly<Record<string, string>>;
}
