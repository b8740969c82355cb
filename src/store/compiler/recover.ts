import type { Queryable } from '../database.js';
import type { Claim } from './store-result.js';

// Claims whose compiler is gone go back to Pending: their instance has not beaten within
// `aliveWithinSecs`, or they have no instance at all (a claim from before claims were recorded).
// Back to Pending refreshes the status like any Pending write and clears system_error.

export async function resetAbandoned(q: Queryable, aliveWithinSecs: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `UPDATE pipeline p
        SET program_status = 'Pending', program_status_since = clock_timestamp(), compiler_instance = NULL,
            program_error = program_error - 'system_error', refresh_version = refresh_version + 1
      WHERE p.program_status IN ('CompilingSql', 'CompilingRust')
        AND NOT EXISTS (SELECT 1 FROM component_heartbeat h
                         WHERE h.component = 'compiler' AND h.instance = p.compiler_instance
                           AND h.last_seen > clock_timestamp() - make_interval(secs => $1))
      RETURNING p.id`,
    [aliveWithinSecs],
  );
  return rows.map((r) => r.id);
}

/** On a clean stop: this instance's claims go back to Pending and its heartbeat row goes away. */
export async function releaseInstance(q: Queryable, instance: string): Promise<void> {
  await q.query(
    `UPDATE pipeline SET program_status = 'Pending', program_status_since = clock_timestamp(),
            compiler_instance = NULL, refresh_version = refresh_version + 1
      WHERE compiler_instance = $1 AND program_status IN ('CompilingSql', 'CompilingRust')`,
    [instance],
  );
  await q.query(`DELETE FROM component_heartbeat WHERE component = 'compiler' AND instance = $1`, [instance]);
}

/**
 * Claims this instance gave up on (a result write that failed, e.g. while the database was away)
 * go back to Pending, so a live compiler cannot leave a claim stuck either.
 */
export async function releaseClaims(q: Queryable, instance: string, claims: readonly Claim[]): Promise<void> {
  for (const claim of claims)
    await q.query(
      `UPDATE pipeline SET program_status = 'Pending', program_status_since = clock_timestamp(),
              compiler_instance = NULL, refresh_version = refresh_version + 1
        WHERE id = $1 AND program_version = $2 AND compiler_instance = $3
          AND program_status IN ('CompilingSql', 'CompilingRust')`,
      [claim.id, claim.program_version, instance],
    );
}
