import type { Logger } from '../../logging/logger.js';
import type { Database } from '../database.js';
import { compact, type CompactionReport } from './compact.js';

/** How often the embedded database is compacted. A round takes milliseconds on a healthy database. */
export const COMPACT_INTERVAL_MS = 60_000;

export interface CompactionLoopIo {
  /** One round (production: `compact(db)`); tests may pass their own. */
  round: () => Promise<CompactionReport>;
  onReport: (report: CompactionReport) => void;
  onError: (error: unknown) => void;
  intervalMs?: number;
}

/**
 * Runs `round` every interval, never two at once, until the returned stop resolves (after the round
 * in flight, so closing the database never races a VACUUM).
 */
export function startCompactionLoop(io: CompactionLoopIo): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || running) return;
    running = io
      .round()
      .then(io.onReport, io.onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, io.intervalMs ?? COMPACT_INTERVAL_MS);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/** The loop for the embedded record database (PostgreSQL has autovacuum and a checkpointer). */
export function maintainEmbedded(db: Database, log: Pick<Logger, 'info' | 'warn'>): () => Promise<void> {
  return startCompactionLoop({
    round: () => compact(db),
    onReport: (report) => {
      if (report.rewritten.length > 0) log.info({ ...report }, 'embedded database compacted');
    },
    onError: (error) => log.warn({ error }, 'embedded database compaction failed'),
  });
}
