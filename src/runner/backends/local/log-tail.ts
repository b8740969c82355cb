import { appendFileSync, fstatSync, ftruncateSync, type FSWatcher, readSync, watch } from 'node:fs';
import { appendFile, copyFile, type FileHandle, open, stat } from 'node:fs/promises';

/**
 * Reads are triggered by file-change events (inotify on Linux); the poll is a safety net only, and
 * a slow one while events arrive: at 1 s it cost an open, a stat and a close per pipeline per second,
 * a tenth of the manager's steady CPU with tens of pipelines. Without a watcher it is the only way.
 */
const SAFETY_POLL_MS = 10_000;
const POLL_WITHOUT_EVENTS_MS = 1_000;
/** A rotation's last, synchronous catch-up is at most about this big. */
const CATCH_UP_BYTES = 64 * 1024;

/**
 * Follows a growing log file and hands each complete line to `onLine`. A change event on the file
 * triggers a read at once, so a pipeline's announcement reaches the runner within milliseconds,
 * while an idle pipeline costs nothing but a slow fallback poll (for filesystems without events).
 */
export interface Tail {
  /** Bytes of the file handed out as lines so far: what a reader of the backlog stops at. */
  readonly offset: number;
  stop(): Promise<void>;
}

export interface TailOptions {
  /**
   * Once this many bytes are handed out and the reader is at a line's end, the file is copied to
   * `<path>.1` (replacing the previous copy) and truncated: a pipeline that runs for weeks keeps at
   * most twice this much log on disk. The writer must append (O_APPEND), so its next line lands at
   * the start of the emptied file. Lines written between the copy and the truncation (microseconds)
   * are lost: the price of rotating a file another process writes, as logrotate's copytruncate.
   */
  rotateAtBytes?: number;
}

/** Where a rotated log's previous part is kept. */
export const rotatedPath = (path: string): string => `${path}.1`;

export function tailFile(path: string, onLine: (line: string) => void, opts: TailOptions = {}): Tail {
  let offset = 0;
  let delivered = 0;
  // Bytes after the last newline. Lines are cut at the newline byte, which never occurs inside a
  // UTF-8 sequence, so a character whose bytes straddle two reads is decoded whole.
  let partial = Buffer.alloc(0);
  let stopped = false;
  const buf = Buffer.alloc(64 * 1024);
  /** Hands out every whole line from `offset` to the end of what `handle` holds. */
  const drain = async (handle: FileHandle) => {
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
      if (bytesRead === 0) return;
      const read = buf.subarray(0, bytesRead);
      const bytes = partial.length > 0 ? Buffer.concat([partial, read]) : read;
      const end = bytes.lastIndexOf(0x0a) + 1;
      partial = Buffer.from(bytes.subarray(end));
      // Up to the end of the last whole line, updated in the same tick as the lines go out.
      offset += bytesRead;
      delivered = Math.max(0, offset - partial.length);
      for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) if (line.length > 0) onLine(line);
    }
  };
  /**
   * Copy the file to `.1`, catch the copy up with what the writer appended meanwhile, then append
   * the last few bytes and empty the file synchronously: between the size read and the truncation
   * only a small read and write run, so the window in which a line can be lost is microseconds even
   * for a writer that never pauses. The copy's lines not yet read are handed out afterwards.
   */
  const rotate = async (handle: FileHandle) => {
    const kept = rotatedPath(path);
    await copyFile(path, kept);
    let copied = (await stat(kept)).size;
    for (let round = 0; round < 8; round++) {
      const size = (await handle.stat()).size;
      if (size - copied <= CATCH_UP_BYTES) break;
      const rest = Buffer.alloc(size - copied);
      await handle.read(rest, 0, rest.length, copied);
      await appendFile(kept, rest);
      copied = size;
    }
    const last = Buffer.alloc(Math.max(0, fstatSync(handle.fd).size - copied));
    readSync(handle.fd, last, 0, last.length, copied);
    appendFileSync(kept, last);
    ftruncateSync(handle.fd, 0);
    const copy = await open(kept, 'r');
    try {
      await drain(copy);
    } finally {
      await copy.close();
    }
    // A line cut at the copy's end goes on at the start of the emptied file: `partial` stays.
    offset = delivered = 0;
  };
  const readMore = async () => {
    // Read-write: a rotation truncates through this handle.
    const handle = await open(path, 'r+').catch(() => undefined);
    if (!handle) return;
    try {
      const size = (await handle.stat()).size;
      if (size < offset) {
        // Truncated by someone else: what was not read yet is gone; start over at the beginning.
        offset = delivered = 0;
        partial = Buffer.alloc(0);
      }
      if (size <= offset) return;
      await drain(handle);
      if (opts.rotateAtBytes !== undefined && offset >= opts.rotateAtBytes) await rotate(handle);
    } finally {
      await handle.close();
    }
  };
  // Reads never overlap: each waits for the previous one.
  let running = Promise.resolve();
  const kick = () => {
    if (!stopped) running = running.then(readMore).catch(() => undefined);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, kick);
    watcher.on('error', () => undefined);
  } catch {
    // The file does not exist yet or cannot be watched: the poll covers it.
  }
  const timer = setInterval(kick, watcher ? SAFETY_POLL_MS : POLL_WITHOUT_EVENTS_MS);
  kick();
  return {
    get offset() {
      return delivered;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      watcher?.close();
      clearInterval(timer);
      await running;
      await readMore().catch(() => undefined);
      if (partial.length > 0) onLine(partial.toString('utf8'));
    },
  };
}

/** The last `n` lines of a file (for error details after a process exits), or of its first `end` bytes. */
export async function lastLines(path: string, n: number, maxBytes = 16 * 1024, end?: number): Promise<string[]> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return [];
  try {
    const size = end ?? (await handle.stat()).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    return buf.toString('utf8').split('\n').filter(Boolean).slice(-n);
  } finally {
    await handle.close();
  }
}
