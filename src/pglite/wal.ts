import { TAR_BLOCK, tarEntries } from './tar.js';

// The WAL segments a PGlite dump needs, and a dump (an uncompressed tar, as PGlite's dumpDataDir
// writes it) without the others.

/** The segments from the last checkpoint's redo record to the current insert position, by file name. */
export interface NeededWal {
  /** Segment of the redo record: recovery starts there, older ones are never read again. */
  first: string;
  /** Segment of the insert position: later ones are only recycled or pre-allocated files. */
  last: string;
}

/**
 * Read right before a dump, with nothing else running. PostgreSQL's rule (WAL docs, "Checkpoints"):
 * after a checkpoint, segments before the one holding its redo record are no longer needed; those
 * past the insert position hold no WAL yet (old segments renamed for reuse, or zeros), and the
 * server creates a missing one when it gets there.
 */
export const NEEDED_WAL_SQL = `SELECT redo_wal_file AS first, pg_walfile_name(pg_current_wal_insert_lsn()) AS last
  FROM pg_control_checkpoint()`;

/** A WAL segment file at the top of pg_wal: timeline, log and segment number, 8 hex digits each. */
const SEGMENT = /^\/?pg_wal\/([0-9A-F]{24})$/;

/** The segment's file name when `name` is a WAL segment file at the top of pg_wal. */
export function walSegment(name: string): string | undefined {
  return SEGMENT.exec(name)?.[1];
}

/**
 * The dump without the WAL segments outside `needed`: those were 6 of the 15 MiB of the engine's
 * dump. Segment names of one timeline sort as their positions, so a string comparison is the
 * order. A dump this reader does not understand comes back unchanged: a larger dump, never a
 * broken one.
 */
export function dropUnneededWal(tar: Uint8Array, needed: NeededWal): Uint8Array {
  const entries = tarEntries(tar);
  if (!entries) return tar;
  const kept = entries.filter(({ name }) => {
    const segment = walSegment(name);
    return segment === undefined || (segment >= needed.first && segment <= needed.last);
  });
  if (kept.length === entries.length) return tar;
  return Buffer.concat([...kept.map(({ start, end }) => tar.subarray(start, end)), new Uint8Array(2 * TAR_BLOCK)]);
}
