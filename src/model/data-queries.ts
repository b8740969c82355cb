import { z } from 'zod';

// The query strings of a pipeline's data path (docs/data-path.md), one schema each: the pipeline
// process parses its requests with them, and the manager's OpenAPI document describes the forwarded
// routes from them, so the two cannot drift apart.

/** Query-string booleans as the ecosystem's clients send them ("true"/"false"). */
export const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The update formats of connectors (encoded on output too). */
export const UPDATE_FORMATS = ['insert_delete', 'raw', 'weighted'] as const;
/** HTTP ingress also reads debezium's change events (input only). */
export const INGRESS_UPDATE_FORMATS = [...UPDATE_FORMATS, 'debezium'] as const;
/** The JSON flavors ingress reads (src/formats/json-flavor.ts). */
export const JSON_FLAVORS = ['default', 'pandas'] as const;
/**
 * The established server's other flavors (its SDK's input_json accepts debezium_mysql, snowflake and
 * kafka_connect_json_converter): each spells dates, times and decimals its own way, which svc does
 * not read, so they are refused by name rather than read as the default and half of a table's values
 * silently misread.
 */
const jsonFlavor = z.enum(JSON_FLAVORS, {
  error: (issue) =>
    `'${String(issue.input)}' is not a flavor svc reads: it reads ${JSON_FLAVORS.join(' and ')} ` +
    '(debezium_mysql, snowflake, kafka_connect_json_converter and the others of the established server are not read)',
});
export const EGRESS_FORMATS = ['json', 'csv'] as const;
export const QUERY_FORMATS = ['text', 'json', 'arrow_ipc', 'parquet', 'hash'] as const;

/** The formats of an ingress body. */
const INGRESS_FORMATS = ['json', 'csv'] as const;

export const IngressQuery = z.looseObject({
  format: z.enum(INGRESS_FORMATS).default('csv'),
  update_format: z.enum(INGRESS_UPDATE_FORMATS).default('insert_delete'),
  array: boolParam.default(false),
  force: boolParam.default(false),
  json_flavor: jsonFlavor.default('default'),
});

/**
 * How an ingress body is written: the parsed part of IngressQuery its decoder reads
 * (formats/engine-codec.ts, on the engine's thread, which checks what crossed to it against this).
 */
export const BodyFormat = z.strictObject({
  format: z.enum(INGRESS_FORMATS),
  update_format: z.enum(INGRESS_UPDATE_FORMATS),
  array: z.boolean(),
  json_flavor: z.enum(JSON_FLAVORS),
});
export type BodyFormat = z.infer<typeof BodyFormat>;

export const EgressQuery = z.looseObject({
  format: z.enum(EGRESS_FORMATS).default('json'),
  backpressure: boolParam.default(false),
  send_snapshot: boolParam.default(false),
});

export const AdhocQuery = z.looseObject({
  sql: z.string().min(1),
  format: z.enum(QUERY_FORMATS).default('text'),
});

export const CompletionQuery = z.object({ token: z.string().min(1) });

/** The answers the OpenAPI document types. */
export const IngressAnswer = z.object({ token: z.string() });
export const CompletionAnswer = z.object({ status: z.enum(['complete', 'inprogress']), step: z.int().optional() });
