import { withClient } from './database.js';

// PostgreSQL's own I/O counters for the pipeline table and its TOAST table: proof, from the server
// side, of whether a request read program texts. A 10 KiB program is stored out of line (TOAST), so
// reading one shows up as TOAST blocks; a query that never selects program_code reads none.
//
// Backends publish their counters lazily: PostgreSQL 15 flushes a backend's pending counters when
// it goes idle, but at most once a second, otherwise only after 10 idle seconds
// (PGSTAT_IDLE_INTERVAL) or at exit. Stopping as soon as the scan count caught up charged one
// phase's TOAST reads to the next, so a phase ends only once its scans are counted AND the
// counters have stood still for longer than that interval: ~11 s more, but every block lands in
// the phase that read it.

export interface Counters {
  /** Sequential plus index scans of `pipeline`: one or more per query. */
  scans: number;
  heapBlocks: number;
  toastBlocks: number;
}

export interface CounterDelta extends Counters {
  /** False when the counters did not settle within the time limit: then a lower bound. */
  settled: boolean;
}

const STILL_MS = 11_000;
const POLL_MS = 500;
const SETTLE_TIMEOUT_MS = 60_000;

export async function readCounters(databaseUrl: string): Promise<Counters> {
  // A fresh connection each time, reading only statistics views: it adds nothing to the counters.
  return withClient(databaseUrl, async (c) => {
    const r = await c.query<Counters>(
      `SELECT (s.seq_scan + coalesce(s.idx_scan, 0))::float8 AS scans,
         (coalesce(io.heap_blks_read, 0) + coalesce(io.heap_blks_hit, 0))::float8 AS "heapBlocks",
         (coalesce(io.toast_blks_read, 0) + coalesce(io.toast_blks_hit, 0))::float8 AS "toastBlocks"
       FROM pg_stat_user_tables s JOIN pg_statio_user_tables io USING (relid)
       WHERE s.relname = 'pipeline'`,
    );
    const row = r.rows[0];
    if (!row) throw new Error('no statistics for table pipeline');
    return row;
  });
}

const same = (a: Counters, b: Counters): boolean =>
  a.scans === b.scans && a.heapBlocks === b.heapBlocks && a.toastBlocks === b.toastBlocks;

/**
 * Waits until at least `queries` scans since `before` are published and nothing has moved for
 * STILL_MS; returns the change and the settled reading (the next phase's `before`).
 */
export async function settle(
  databaseUrl: string,
  before: Counters,
  queries: number,
): Promise<{ delta: CounterDelta; now: Counters }> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let now = await readCounters(databaseUrl);
  let stillSince = Date.now();
  for (;;) {
    const settled = now.scans - before.scans >= queries && Date.now() - stillSince >= STILL_MS;
    if (settled || Date.now() > deadline) {
      const delta = {
        scans: now.scans - before.scans,
        heapBlocks: now.heapBlocks - before.heapBlocks,
        toastBlocks: now.toastBlocks - before.toastBlocks,
        settled,
      };
      return { delta, now };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const next = await readCounters(databaseUrl);
    if (!same(next, now)) stillSince = Date.now();
    now = next;
  }
}

/** A baseline with nothing pending from earlier work (seeding, warm-ups, other phases). */
export async function quietCounters(databaseUrl: string): Promise<Counters> {
  const first = await readCounters(databaseUrl);
  return (await settle(databaseUrl, first, 0)).now;
}
