import type { Queryable } from './database.js';

/** An instance counts as alive when it beat within this many seconds (/v0/cluster_healthz). */
export const HEARTBEAT_FRESH_SECS = 30;

/**
 * Records that a component instance is alive (read by /v0/cluster_healthz). A beat after a gap
 * longer than HEARTBEAT_FRESH_SECS starts a new run (`since`): the instance was unhealthy meanwhile.
 */
export async function beat(q: Queryable, component: string, instance: string, message = ''): Promise<void> {
  await q.query(
    `INSERT INTO component_heartbeat (component, instance, last_seen, message, since)
     VALUES ($1, $2, clock_timestamp(), $3, clock_timestamp())
     ON CONFLICT (component, instance) DO UPDATE SET
       since = CASE WHEN component_heartbeat.last_seen > clock_timestamp() - make_interval(secs => $4)
                    THEN component_heartbeat.since ELSE EXCLUDED.since END,
       last_seen = EXCLUDED.last_seen, message = EXCLUDED.message`,
    [component, instance, message, HEARTBEAT_FRESH_SECS],
  );
}

export interface ComponentHealth {
  component: string;
  alive: number;
  seconds_since_last: number | null;
  /** Healthy: since when some live instance has been beating without a gap. Unhealthy: since the last beat went stale. */
  unchanged_since: Date | string | null;
}

/** Per component: how many instances beat within `withinSecs`, how long ago the latest did, and since when that holds. */
export async function componentHealth(q: Queryable, withinSecs: number): Promise<ComponentHealth[]> {
  return q.query<ComponentHealth>(
    `SELECT component,
            count(*) FILTER (WHERE last_seen > clock_timestamp() - make_interval(secs => $1))::int AS alive,
            extract(epoch FROM clock_timestamp() - max(last_seen))::float8 AS seconds_since_last,
            coalesce(
              min(since) FILTER (WHERE last_seen > clock_timestamp() - make_interval(secs => $1)),
              max(last_seen) + make_interval(secs => $1)) AS unchanged_since
       FROM component_heartbeat GROUP BY component`,
    [withinSecs],
  );
}
