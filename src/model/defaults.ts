/** Drops members that are null or undefined: the API accepts `null` for "unset" everywhere. */
export function dropNulls<T extends object>(raw: T): { [K in keyof T]: Exclude<T[K], null | undefined> } {
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], null | undefined>;
  };
}

/** The set members of `raw` over the documented defaults. */
export function withDefaults<T extends object, D extends object>(raw: T | null | undefined, defaults: D) {
  return { ...defaults, ...dropNulls(raw ?? ({} as T)) };
}
