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

const BLOCK = 512;
/** A WAL segment file at the top of pg_wal: timeline, log and segment number, 8 hex digits each. */
const SEGMENT = /^\/?pg_wal\/([0-9A-F]{24})$/;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end === -1 ? bytes : bytes.subarray(0, end)).toString('latin1');
}

/** One member of a tar: its name and where its header and data are. */
export interface TarEntry {
  name: string;
  start: number;
  end: number;
}

/**
 * The members of an uncompressed ustar archive, or undefined for anything this reader does not
 * understand (another format, a size it cannot read, a truncated file).
 */
export function tarEntries(tar: Uint8Array): TarEntry[] | undefined {
  const entries: TarEntry[] = [];
  for (let start = 0; ;) {
    if (start + BLOCK > tar.length) return undefined;
    const header = tar.subarray(start, start + BLOCK);
    // Two zero blocks end the archive; the first of them is enough to know.
    if (header.every((b) => b === 0)) return entries;
    if (field(header, 257, 5) !== 'ustar') return undefined;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) return undefined;
    const prefix = field(header, 345, 155);
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    const end = start + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (end > tar.length) return undefined;
    entries.push({ name, start, end });
    start = end;
  }
}

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
  return Buffer.concat([...kept.map(({ start, end }) => tar.subarray(start, end)), new Uint8Array(2 * BLOCK)]);
}
