/**
 * The one narrow interface every part of svc uses to reach its database. Two adapters implement
 * it: PostgreSQL through `pg` and the embedded PGlite, so every query runs unchanged on both.
 */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on `channel`; resolves to the unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  readonly kind: 'postgres' | 'pglite';
}
