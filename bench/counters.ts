import { withClient } from './database.js';

// PostgreSQL's own I/O counters for the pipeline table and its TOAST table: proof, from the server
// side, of whether a request read program texts. A 10 KiB program is stored out of line (TOAST), so
// reading one shows up as TOAST blocks; a query that never selects program_code reads none.
//
// Backends publish their counters lazily (PostgreSQL 15: at most once a second, or when idle for
// 10 s, or on exit), so a reading is only complete once the scan count shows every query counted.

export interface Counters {
  /** Sequential plus index scans of `pipeline`: one or more per query. */
  scans: number;
  heapBlocks: number;
  toastBlocks: number;
}

const SETTLE_TIMEOUT_MS = 30_000;

export async function readCounters(databaseUrl: string): Promise<Counters> {
  // A fresh connection each time: its own statistics never mix into the reading.
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

export interface CounterDelta extends Counters {
  /** False when the counters did not catch up within 30 s: the figures are then a lower bound. */
  settled: boolean;
}

/** The counters since `before`, once at least `queries` scans have been published. */
export async function countersSince(databaseUrl: string, before: Counters, queries: number): Promise<CounterDelta> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const now = await readCounters(databaseUrl);
    const settled = now.scans - before.scans >= queries;
    if (settled || Date.now() > deadline) {
      return {
        scans: now.scans - before.scans,
        heapBlocks: now.heapBlocks - before.heapBlocks,
        toastBlocks: now.toastBlocks - before.toastBlocks,
        settled,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
