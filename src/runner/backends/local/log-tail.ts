import { type FSWatcher, watch } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads are triggered by file-change events (inotify on Linux); the poll is a safety net only, and
 * a slow one while events arrive: at 1 s it cost an open, a stat and a close per pipeline per second,
 * a tenth of the manager's steady CPU with tens of pipelines. Without a watcher it is the only way.
 */
const SAFETY_POLL_MS = 10_000;
const POLL_WITHOUT_EVENTS_MS = 1_000;

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

export function tailFile(path: string, onLine: (line: string) => void): Tail {
  let offset = 0;
  let delivered = 0;
  // Bytes after the last newline. Lines are cut at the newline byte, which never occurs inside a
  // UTF-8 sequence, so a character whose bytes straddle two reads is decoded whole.
  let partial = Buffer.alloc(0);
  let stopped = false;
  const buf = Buffer.alloc(64 * 1024);
  const readMore = async () => {
    const handle = await open(path, 'r').catch(() => undefined);
    if (!handle) return;
    try {
      if ((await handle.stat()).size <= offset) return;
      for (;;) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        if (bytesRead === 0) break;
        const read = buf.subarray(0, bytesRead);
        const bytes = partial.length > 0 ? Buffer.concat([partial, read]) : read;
        const end = bytes.lastIndexOf(0x0a) + 1;
        partial = Buffer.from(bytes.subarray(end));
        // Up to the end of the last whole line, updated in the same tick as the lines go out.
        offset += bytesRead;
        delivered = offset - partial.length;
        for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) if (line.length > 0) onLine(line);
      }
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
