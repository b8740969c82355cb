import { badRequest } from '../model/errors.js';
import { CreatePipelineBody } from '../model/pipeline-body.js';
import { compileProgramConfig } from '../model/program-config.js';
import { compileRuntimeConfig } from '../model/runtime-config.js';
import { parseBody } from '../model/validation.js';
import type { EditableFields } from './edit.js';

// A create (POST/PUT) body → the editable fields, compiled (defaults filled, nulls dropped) exactly
// once. Here rather than in the API because a Pipeline resource's spec (the runner's controller)
// is the same body and must be refused and compiled the same way.

export const requireObject = (body: unknown): void => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('MalformedRequest', 'The request body must be a JSON object');
  }
};

/** POST and PUT: every field; missing strings become "", missing objects {} (then defaulted). */
export function compileCreateBody(body: unknown): EditableFields {
  requireObject(body);
  const b = parseBody(CreatePipelineBody, body);
  return {
    name: b.name,
    description: b.description ?? '',
    tags: b.tags ?? [],
    program_code: b.program_code,
    udf_rust: b.udf_rust ?? '',
    udf_toml: b.udf_toml ?? '',
    runtime_config: compileRuntimeConfig(b.runtime_config),
    program_config: compileProgramConfig(b.program_config),
  };
}
