import { z } from 'zod';

// One command-line option of svc: a flag `--x-y` and its environment variable `SVC_X_Y` (src/config.ts).

export interface OptionSpec {
  /** Flag name without dashes, e.g. `bind-address`; the env var is `SVC_BIND_ADDRESS`. */
  flag: string;
  description: string;
  default?: string;
  /** Shown as `<value>` in help. */
  value: string;
}

/** A `bool` option's value: a bare flag (true), a boolean word, or the variable's text. */
export const flagBool = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  if (/^(1|true|yes|on)$/i.test(v.trim())) return true;
  if (/^(0|false|no|off)$/i.test(v.trim())) return false;
  ctx.addIssue({ code: 'custom', message: 'must be true or false' });
  return z.NEVER;
});
