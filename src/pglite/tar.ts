import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';

// The uncompressed ustar archives PGlite's dumpDataDir writes (an initdb dump, src/pglite/initdb-dump.ts):
// read member by member, and unpacked into a directory. Only what those archives hold: directories
// and regular files with their modes.

export const TAR_BLOCK = 512;

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
  /** The data's length (the member's bytes after the header, before padding). */
  size: number;
  /** ustar's type flag: '0' (or '') a regular file, '5' a directory. */
  type: string;
  /** Permission bits. */
  mode: number;
}

/**
 * The members of an uncompressed ustar archive, or undefined for anything this reader does not
 * understand (another format, a size it cannot read, a truncated file).
 */
export function tarEntries(tar: Uint8Array): TarEntry[] | undefined {
  const entries: TarEntry[] = [];
  for (let start = 0; ;) {
    if (start + TAR_BLOCK > tar.length) return undefined;
    const header = tar.subarray(start, start + TAR_BLOCK);
    // Two zero blocks end the archive; the first of them is enough to know.
    if (header.every((b) => b === 0)) return entries;
    if (field(header, 257, 5) !== 'ustar') return undefined;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) return undefined;
    const mode = Number.parseInt(field(header, 100, 8).trim() || '0', 8) & 0o7777;
    const prefix = field(header, 345, 155);
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    const end = start + TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    if (end > tar.length) return undefined;
    entries.push({ name, start, end, size, type: field(header, 156, 1), mode: Number.isNaN(mode) ? 0 : mode });
    start = end;
  }
}

export class TarError extends Error {
  override readonly name = 'TarError';
}

/**
 * Unpacks `tar` into `dir` (created if missing), `last` (a member's path in the archive, without
 * the leading slash) after every other member: a reader that takes that file's presence for "the
 * directory is complete" never sees half of it, whenever the process stops. Throws TarError for
 * an archive this reader does not understand, or a member outside `dir` or of another type.
 */
export async function extractTar(tar: Uint8Array, dir: string, last?: string): Promise<void> {
  const entries = tarEntries(tar);
  if (!entries) throw new TarError('not an uncompressed ustar archive, or a truncated one');
  // Every member is checked before the first is written: a member this reader refuses leaves
  // nothing behind.
  const members = entries.map((entry) => {
    const path = normalize(entry.name.replace(/^\/+/, ''));
    if (path === '..' || path.startsWith(`..${sep}`) || path === '.')
      throw new TarError(`member outside the directory: ${entry.name}`);
    const kind = entry.type === '5' ? 'dir' : entry.type === '0' || entry.type === '' ? 'file' : undefined;
    if (!kind) throw new TarError(`member of type '${entry.type}' (only files and directories): ${entry.name}`);
    return { entry, path, kind };
  });
  const isLast = (m: { path: string }) => last !== undefined && m.path === normalize(last);
  await mkdir(dir, { recursive: true });
  for (const { entry, path, kind } of [...members.filter((m) => !isLast(m)), ...members.filter(isLast)]) {
    const target = join(dir, path);
    if (kind === 'dir') {
      await mkdir(target, { recursive: true, mode: entry.mode || 0o700 });
      continue;
    }
    const data = tar.subarray(entry.start + TAR_BLOCK, entry.start + TAR_BLOCK + entry.size);
    await writeFile(target, data, { mode: entry.mode || 0o600 });
    // writeFile's mode applies to a new file only; one left by an earlier, interrupted try gets it too.
    await chmod(target, entry.mode || 0o600);
  }
}
