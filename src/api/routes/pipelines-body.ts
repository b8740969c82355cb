import { compileCreateBody, requireObject } from '../../lifecycle/create-body.js';
import type { EditableFields } from '../../lifecycle/edit.js';
import { PatchPipelineBody } from '../../model/pipeline-body.js';
import { compileProgramConfig, ProgramConfigInput } from '../../model/program-config.js';
import { compileRuntimeConfig, RuntimeConfigInput } from '../../model/runtime-config.js';
import { unknownMembers } from '../../model/unknown-members.js';
import { parseBody } from '../../model/validation.js';

// Request bodies → the editable fields, compiled (defaults filled, nulls dropped) exactly once; the
// create body's compilation lives in lifecycle/create-body.ts (the Pipeline resources' controller uses it too).

export { compileCreateBody };

/** PATCH: only the members given (null means "leave as is"); objects replace the stored ones whole. */
export function compilePatchBody(body: unknown): Partial<EditableFields> {
  requireObject(body);
  const b = parseBody(PatchPipelineBody, body);
  const out: Partial<EditableFields> = {};
  if (b.name != null) out.name = b.name;
  if (b.description != null) out.description = b.description;
  if (b.tags != null) out.tags = b.tags;
  if (b.program_code != null) out.program_code = b.program_code;
  if (b.udf_rust != null) out.udf_rust = b.udf_rust;
  if (b.udf_toml != null) out.udf_toml = b.udf_toml;
  if (b.runtime_config != null) out.runtime_config = compileRuntimeConfig(b.runtime_config);
  if (b.program_config != null) out.program_config = compileProgramConfig(b.program_config);
  return out;
}

/**
 * Members of a (valid) body's runtime_config and program_config that this version does not know:
 * kept as sent and ignored (issue 17). Full paths, e.g. `runtime_config.resources.volume_attributes_class`.
 */
export function ignoredMembers(body: unknown): string[] {
  const b = body as { runtime_config?: unknown; program_config?: unknown };
  return [
    ...unknownMembers(RuntimeConfigInput, b.runtime_config, 'runtime_config'),
    ...unknownMembers(ProgramConfigInput, b.program_config, 'program_config'),
  ];
}
