import type { Queryable } from './database.js';

/** Throws when the database does not answer (the readiness probes of the API and the runner). */
export async function ping(q: Queryable): Promise<void> {
  await q.query('SELECT 1');
}
