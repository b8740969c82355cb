import { open } from 'node:fs/promises';

/**
 * Follows a growing log file and hands each complete line to `onLine`. Polling (not fs.watch) so it
 * behaves the same on every filesystem; a pipeline writes little, so the cost is a stat a tick.
 */
export function tailFile(path: string, onLine: (line: string) => void, everyMs = 50): { stop(): Promise<void> } {
  let offset = 0;
  let partial = '';
  let stopped = false;
  const readMore = async () => {
    const handle = await open(path, 'r').catch(() => undefined);
    if (!handle) return;
    try {
      for (;;) {
        const buf = Buffer.alloc(64 * 1024);
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const lines = (partial + buf.subarray(0, bytesRead).toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.length > 0) onLine(line);
      }
    } finally {
      await handle.close();
    }
  };
  let running = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(readMore).catch(() => undefined);
  }, everyMs);
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running;
      await readMore().catch(() => undefined);
      if (partial) onLine(partial);
    },
  };
}

/** The last `n` lines of a file (for error details after a process exits). */
export async function lastLines(path: string, n: number, maxBytes = 16 * 1024): Promise<string[]> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    return buf.toString('utf8').split('\n').filter(Boolean).slice(-n);
  } finally {
    await handle.close();
  }
}
