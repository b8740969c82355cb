import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

// How much WAL the embedded record database keeps. PostgreSQL keeps recycled segments up to
// `min_wal_size` (80 MB by default) and checkpoints when `max_wal_size` (1 GB) is written; on a
// server that is room for bursts, but for a database of a few records it is most of the data dir,
// and the ring filling up one 16 MiB segment at a time reads as growth. A new data dir gets 1 MiB
// segments and a few MiB of recycled ones; an existing one keeps its segment size (fixed at initdb).

/** Segment size of a new data dir, MiB. */
const NEW_SEGMENT_MB = 1;
/** Recycled WAL kept for reuse, MiB (PostgreSQL requires at least two segments). */
const MIN_WAL_MB = 4;
/** Written WAL that forces a checkpoint even if the compaction loop's own CHECKPOINT is late. */
const MAX_WAL_MB = 64;

/** A WAL segment file: timeline, log and segment number, 8 hex digits each. */
const SEGMENT = /^[0-9A-F]{24}$/;

export interface WalStartParams {
  /** For initdb of a new data dir only (PGlite ignores it for an existing one). */
  initDbStartParams: string[];
  /** `-c` settings added after PGlite's own start parameters. */
  settings: string[];
}

/** The segment size of an existing data dir, MiB (from a segment file's size), or undefined if new. */
async function segmentMb(dataDir: string): Promise<number | undefined> {
  const names = await readdir(join(dataDir, 'pg_wal')).catch(() => [] as string[]);
  const segment = names.find((n) => SEGMENT.test(n));
  if (!segment) return undefined;
  return (await stat(join(dataDir, 'pg_wal', segment))).size / (1024 * 1024);
}

export async function walStartParams(dataDir: string): Promise<WalStartParams> {
  const existing = await segmentMb(dataDir);
  const segment = existing ?? NEW_SEGMENT_MB;
  return {
    initDbStartParams: existing === undefined ? [`--wal-segsize=${NEW_SEGMENT_MB}`] : [],
    settings: [
      '-c',
      `min_wal_size=${Math.max(MIN_WAL_MB, 2 * segment)}MB`,
      '-c',
      `max_wal_size=${Math.max(MAX_WAL_MB, 4 * segment)}MB`,
    ],
  };
}
