import { z } from 'zod';
import { splitKnown } from './unknown-members.js';

// Seed 2.3. Only `cache` and `use_platform_compiler` have documented defaults; the others stay
// absent unless set.
export const CompilationProfile = z.enum(['dev', 'unoptimized', 'optimized', 'optimized_symbols']);

export const ProgramConfigInput = z.looseObject({
  cache: z.boolean().nullish(),
  profile: CompilationProfile.nullish(),
  runtime_version: z.string().min(1).max(100).nullish(),
  use_platform_compiler: z.boolean().nullish(),
});
export type ProgramConfigInput = z.input<typeof ProgramConfigInput>;

export const ProgramConfig = z.looseObject({
  cache: z.boolean(),
  profile: CompilationProfile.optional(),
  runtime_version: z.string().optional(),
  use_platform_compiler: z.boolean(),
});
export type ProgramConfig = z.infer<typeof ProgramConfig>;

/** Raw (validated) input → the stored form with defaults filled and nulls dropped. */
export function compileProgramConfig(input: z.infer<typeof ProgramConfigInput> | null | undefined): ProgramConfig {
  const { known: raw, unknown } = splitKnown(ProgramConfigInput, input ?? {});
  return {
    // Members this version does not know, kept as sent (issue 17).
    ...unknown,
    cache: raw.cache ?? true,
    ...(raw.profile != null && { profile: raw.profile }),
    ...(raw.runtime_version != null && { runtime_version: raw.runtime_version }),
    use_platform_compiler: raw.use_platform_compiler ?? false,
  };
}
