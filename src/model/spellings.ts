import type { z } from 'zod';

// The newer clients spell some runtime_config members as duration or size strings under a name of
// their own (`checkpoint_interval: "60s"` for `checkpoint_interval_secs: 60`). Their schemas convert
// the value into the seed member's unit; here the two spellings become the seed's one: the stored
// and served record, the runner and the pipeline process only ever see the seed's member.

/** [the newer spelling, the seed's member]. */
export type Spelling = readonly [string, string];

/** Both spellings of one setting is the setting written twice: refused, as the established service does. */
export function checkOneSpelling(value: Record<string, unknown>, pairs: readonly Spelling[], ctx: z.RefinementCtx) {
  for (const [newer, seed] of pairs) {
    if (value[newer] != null && value[seed] != null) {
      ctx.addIssue({
        code: 'custom',
        path: [newer],
        message: `sets the same setting as ${seed}; give one of the two`,
      });
    }
  }
}

/** The value with each newer spelling moved onto its seed member (already in the seed's unit). */
export function toSeedSpelling<T extends Record<string, unknown>>(value: T, pairs: readonly Spelling[]): T {
  const out: Record<string, unknown> = { ...value };
  for (const [newer, seed] of pairs) {
    if (!(newer in out)) continue;
    if (out[newer] != null) out[seed] = out[newer];
    delete out[newer];
  }
  return out as T;
}
