// One command-line option of svc: a flag `--x-y` and its environment variable `SVC_X_Y` (src/config.ts).

export interface OptionSpec {
  /** Flag name without dashes, e.g. `bind-address`; the env var is `SVC_BIND_ADDRESS`. */
  flag: string;
  description: string;
  default?: string;
  /** Shown as `<value>` in help. */
  value: string;
}
