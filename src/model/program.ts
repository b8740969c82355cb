import { z } from 'zod';
import { JsonObject, JsonValue } from './json.js';

// Seed 2.4 and 2.5: what the compiler reports.

export const SqlCompilerMessage = z.object({
  start_line_number: z.int(),
  start_column: z.int(),
  end_line_number: z.int(),
  end_column: z.int(),
  error_type: z.string(),
  message: z.string(),
  snippet: z.string().optional(),
  warning: z.boolean(),
});
export type SqlCompilerMessage = z.infer<typeof SqlCompilerMessage>;

export const ProgramError = z.object({
  rust_compilation: z.object({ exit_code: z.int32(), stderr: z.string(), stdout: z.string() }).optional(),
  sql_compilation: z.object({ exit_code: z.int32(), messages: z.array(SqlCompilerMessage) }).optional(),
  system_error: z.string().optional(),
});
export type ProgramError = z.infer<typeof ProgramError>;

/** `columntype` is recursive (seed 2.5: "recursive (circular) type description"). */
export interface ColumnType {
  type: string;
  nullable: boolean;
  precision?: number;
  scale?: number;
  component?: ColumnType;
  fields?: Field[];
  /** MAP: the type of its keys and of its values. */
  key?: ColumnType;
  value?: ColumnType;
  [extra: string]: unknown;
}
export interface Field {
  name: string;
  case_sensitive: boolean;
  columntype: ColumnType;
  default?: string;
  lateness?: string;
  unused: boolean;
  watermark?: string;
}

export const ColumnType: z.ZodType<ColumnType> = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    nullable: z.boolean(),
    precision: z.int().optional(),
    scale: z.int().optional(),
    component: ColumnType.optional(),
    fields: z.array(Field).optional(),
    key: ColumnType.optional(),
    value: ColumnType.optional(),
  }),
);

export const Field: z.ZodType<Field> = z.lazy(() =>
  z.object({
    name: z.string(),
    case_sensitive: z.boolean(),
    columntype: ColumnType,
    default: z.string().optional(),
    lateness: z.string().optional(),
    unused: z.boolean(),
    watermark: z.string().optional(),
  }),
);

export const Relation = z.object({
  name: z.string(),
  case_sensitive: z.boolean(),
  fields: z.array(Field),
  // Optional in the seed (2.5), always served: the established clients read it without a default.
  materialized: z.boolean().default(false),
  primary_key: z.array(z.string()).optional(),
  properties: JsonObject.optional(),
});
export type Relation = z.infer<typeof Relation>;

export const ProgramInfo = z.object({
  input_connectors: JsonObject,
  output_connectors: JsonObject,
  schema: z.object({ inputs: z.array(Relation), outputs: z.array(Relation) }),
  udf_stubs: z.string(),
});
export type ProgramInfo = z.infer<typeof ProgramInfo>;

/** A relation as older versions stored it: `materialized` only when true. */
type StoredRelation = Omit<Relation, 'materialized'> & { materialized?: boolean };
type StoredProgramInfo = Omit<ProgramInfo, 'schema'> & {
  schema: { inputs: StoredRelation[]; outputs: StoredRelation[] };
};

/**
 * program_info as served: relations stored before `materialized` was always written get `false`
 * (the established clients read it without a default).
 */
export function withMaterialized(info: StoredProgramInfo): ProgramInfo {
  const fill = (relations: StoredRelation[]) => relations.map((r) => ({ ...r, materialized: r.materialized ?? false }));
  return { ...info, schema: { ...info.schema, inputs: fill(info.schema.inputs), outputs: fill(info.schema.outputs) } };
}

export const ErrorBodySchema = z.object({
  message: z.string(),
  error_code: z.string(),
  details: JsonValue.nullable(),
});
