import { z } from 'zod';
import { ProgramConfigInput } from './program-config.js';
import { RuntimeConfigInput } from './runtime-config.js';

// The create (POST/PUT) and PATCH bodies of API.md. Name, description and tag rules are checked
// here too, so that every rule has one home; the API maps each failing path to its error code.

export const NAME_PATTERN = /^([A-Za-z0-9][-A-Za-z0-9_]*)?[A-Za-z0-9]$/;
export const TAG_PATTERN = /^[a-zA-Z0-9 ._/|\\:=-]+$/;

export const PipelineName = z
  .string()
  .min(1, 'name must not be empty')
  .refine((s) => Buffer.byteLength(s, 'utf8') <= 63, { message: 'name is longer than 63 bytes', abort: true })
  .regex(NAME_PATTERN, 'name must match ^([A-Za-z0-9][-A-Za-z0-9_]*)?[A-Za-z0-9]$');

const Tag = z
  .string()
  .min(1, 'tag must not be empty')
  .max(50, 'tag is longer than 50 characters')
  .regex(TAG_PATTERN, 'tag must match ^[a-zA-Z0-9 ._/|\\\\:=-]+$');

const Fields = {
  name: PipelineName,
  description: z.string().max(300, 'description is longer than 300 characters').nullish(),
  tags: z.array(Tag).max(50, 'more than 50 tags').nullish(),
  program_code: z.string(),
  udf_rust: z.string().nullish(),
  udf_toml: z.string().nullish(),
  runtime_config: RuntimeConfigInput.nullish(),
  program_config: ProgramConfigInput.nullish(),
};

export const CreatePipelineBody = z.strictObject(Fields);
export type CreatePipelineBody = z.infer<typeof CreatePipelineBody>;

export const PatchPipelineBody = z.strictObject({
  ...Fields,
  name: Fields.name.optional(),
  program_code: Fields.program_code.nullish(),
});
export type PatchPipelineBody = z.infer<typeof PatchPipelineBody>;
