// The connector declarations of a table's or view's `WITH ('connectors' = '[…]')`, in the dialect of
// the established streaming-SQL ecosystem: a JSON array of `{"name"?, "transport": {"name", "config"},
// "format": {"name", "config"}}`. Members are strict (a misspelt member is an error at compile time,
// not a silent default), except the Kafka transports', whose other members are the client's own
// options and pass through.
import { z } from 'zod';
import { UPDATE_FORMATS } from '../formats/json-decode.js';

const nonEmpty = z.string().min(1);
/** Kafka client options as users write them (`"client.id": "x"`, `"session.timeout.ms": 6000`). */
const clientOption = z.union([z.string(), z.number(), z.boolean()]);

export const JsonFormatConfig = z.strictObject({
  update_format: z.enum(UPDATE_FORMATS).default('insert_delete'),
  /** true: each message/file is one JSON array of events; false: one event per line. */
  array: z.boolean().default(false),
  /** Accepted for the ecosystem's compatibility; only its default flavour exists here. */
  json_flavor: z.literal('default').optional(),
});
export const CsvFormatConfig = z.strictObject({
  /** Input: whether the first line of each file or message is a header to skip. */
  headers: z.boolean().default(false),
});

export const Format = z.discriminatedUnion('name', [
  z.strictObject({
    name: z.literal('json'),
    config: JsonFormatConfig.default({ update_format: 'insert_delete', array: false }),
  }),
  z.strictObject({ name: z.literal('csv'), config: CsvFormatConfig.default({ headers: false }) }),
]);
export type Format = z.infer<typeof Format>;

export const KafkaInputConfig = z
  .looseObject({
    'bootstrap.servers': nonEmpty,
    topic: nonEmpty.optional(),
    topics: z.array(nonEmpty).min(1).optional(),
    'group.id': nonEmpty.optional(),
    start_from: z.enum(['earliest', 'latest']).default('earliest'),
  })
  .catchall(clientOption)
  .refine((c) => (c.topic === undefined) !== (c.topics === undefined), {
    message: 'exactly one of "topic" or "topics" is required',
    path: ['topic'],
  });
export const KafkaOutputConfig = z
  .looseObject({ 'bootstrap.servers': nonEmpty, topic: nonEmpty })
  .catchall(clientOption);

export const PostgresInputConfig = z.strictObject({ uri: nonEmpty, query: nonEmpty });
export const PostgresOutputConfig = z
  .strictObject({
    uri: nonEmpty,
    table: nonEmpty,
    /** insert: inserts add rows, deletes remove one matching row; upsert: by `key`. */
    mode: z.enum(['insert', 'upsert']).default('insert'),
    key: z.array(nonEmpty).min(1).optional(),
  })
  .refine((c) => c.mode !== 'upsert' || c.key !== undefined, {
    message: 'mode "upsert" needs "key": the columns of the target table\'s unique key',
    path: ['key'],
  });

export const FileInputConfig = z.strictObject({
  path: nonEmpty,
  /** Keep reading what is appended to the file (never ends). */
  follow: z.boolean().default(false),
});
export const FileOutputConfig = z.strictObject({ path: nonEmpty });
export const UrlInputConfig = z.strictObject({
  path: z.url({ protocol: /^https?$/ }),
  /** Further attempts after a failed GET (connection error or 5xx), with back-off. */
  retries: z.int().min(0).max(100).default(5),
});

const DatagenField = z.strictObject({
  /** increment: range start, start+1, … (wrapping at range end); uniform: random in range; values: cycles through `values`. */
  strategy: z.enum(['increment', 'uniform']).default('increment'),
  range: z.tuple([z.number(), z.number()]).optional(),
  values: z.array(z.json()).min(1).optional(),
  scale: z.number().default(1),
  null_percentage: z.number().min(0).max(100).default(0),
});
export const DatagenPlan = z.strictObject({
  /** Rows of this plan (absent: without end). */
  limit: z.int().min(0).optional(),
  /** Rows per second at most (absent: as fast as the pipeline takes them). */
  rate: z.int().min(1).optional(),
  fields: z.record(z.string(), DatagenField).default({}),
});
export const DatagenConfig = z.strictObject({
  plan: z
    .array(DatagenPlan)
    .min(1)
    .default([{ fields: {} }]),
  seed: z.int().optional(),
});

const transport = <N extends string, C extends z.ZodType>(name: N, config: C) =>
  z.strictObject({ name: z.literal(name), config });

export const InputTransport = z.discriminatedUnion('name', [
  transport('kafka_input', KafkaInputConfig),
  transport('postgres_input', PostgresInputConfig),
  transport('file_input', FileInputConfig),
  transport('url_input', UrlInputConfig),
  transport('datagen', DatagenConfig.default({ plan: [{ fields: {} }] })),
]);
export const OutputTransport = z.discriminatedUnion('name', [
  transport('kafka_output', KafkaOutputConfig),
  transport('postgres_output', PostgresOutputConfig),
  transport('file_output', FileOutputConfig),
]);
export type InputTransport = z.infer<typeof InputTransport>;
export type OutputTransport = z.infer<typeof OutputTransport>;

const common = {
  name: nonEmpty.regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "-" and "." only').optional(),
  /** Start paused: the connector takes no input until POST …/connectors/{name}/start. */
  paused: z.boolean().default(false),
  max_batch_size: z.int().min(1).optional(),
};
export const InputConnector = z.strictObject({ ...common, transport: InputTransport, format: Format.optional() });
export const OutputConnector = z.strictObject({ ...common, transport: OutputTransport, format: Format.optional() });
export type InputConnector = z.infer<typeof InputConnector>;
export type OutputConnector = z.infer<typeof OutputConnector>;

export const INPUT_TRANSPORTS = InputTransport.options.map((o) => o.shape.name.value);
export const OUTPUT_TRANSPORTS = OutputTransport.options.map((o) => o.shape.name.value);
export const FORMATS = Format.options.map((o) => o.shape.name.value);

/** The format a connector without one uses: transports carrying bytes default to JSON insert_delete. */
export const DEFAULT_FORMAT: Format = { name: 'json', config: { update_format: 'insert_delete', array: false } };

/** A connector's name: its own, else its transport's (`kafka_input`…). */
export const connectorNameOf = (c: { name?: string | undefined; transport: { name: string } }): string =>
  c.name ?? c.transport.name;

/** An endpoint's name in /stats, logs and checkpoints' positions: `relation.connector`. */
export const endpointNameOf = (relation: string, c: Parameters<typeof connectorNameOf>[0]): string =>
  `${relation}.${connectorNameOf(c)}`;
