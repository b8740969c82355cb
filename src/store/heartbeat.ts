import type { Queryable } from './database.js';

/** Records that a component instance is alive (read by /v0/cluster_healthz). */
export async function beat(q: Queryable, component: string, instance: string, message = ''): Promise<void> {
  await q.query(
    `INSERT INTO component_heartbeat (component, instance, last_seen, message) VALUES ($1, $2, clock_timestamp(), $3)
     ON CONFLICT (component, instance) DO UPDATE SET last_seen = EXCLUDED.last_seen, message = EXCLUDED.message`,
    [component, instance, message],
  );
}

export interface ComponentHealth {
  component: string;
  alive: number;
  seconds_since_last: number | null;
}

/** Per component: how many instances beat within `withinSecs`, and how long ago the latest did. */
export async function componentHealth(q: Queryable, withinSecs: number): Promise<ComponentHealth[]> {
  return q.query<ComponentHealth>(
    `SELECT component,
            count(*) FILTER (WHERE last_seen > clock_timestamp() - make_interval(secs => $1))::int AS alive,
            extract(epoch FROM clock_timestamp() - max(last_seen))::float8 AS seconds_since_last
       FROM component_heartbeat GROUP BY component`,
    [withinSecs],
  );
}
