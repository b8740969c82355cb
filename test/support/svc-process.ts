import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The real `svc` program as a child process (the built dist/cli.js, run by the project's Node).

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface SvcProcess {
  child: ChildProcess;
  /** Parsed JSON log lines so far. */
  lines: Record<string, unknown>[];
  stderr: string[];
  /** Everything written to standard output, as text. */
  stdout(): string;
  waitForLine(pred: (l: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export function startSvc(args: string[], env: Record<string, string> = {}): SvcProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it)`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SVC_LOG_JSON: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const waiters: Array<() => void> = [];
  let buffered = '';
  let all = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    all += text;
    buffered += text;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    // Whole lines only; text-mode lines (no SVC_LOG_JSON) are kept as { text }.
    for (const p of parts) {
      if (p.trim()) lines.push(p.startsWith('{') ? (JSON.parse(p) as Record<string, unknown>) : { text: p });
    }
    for (const w of waiters.splice(0)) w();
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr,
    stdout: () => all,
    exited,
    waitForLine(pred, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching log line in ${timeoutMs} ms; stderr: ${stderr.join('')}`)),
          timeoutMs,
        );
        const check = () => {
          const found = lines.find(pred);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else waiters.push(check);
        };
        void exited.then(() => {
          if (!lines.find(pred)) {
            clearTimeout(timer);
            reject(new Error(`svc exited before the line appeared; stderr: ${stderr.join('')}`));
          }
        });
        check();
      });
    },
  };
}

export const message = (l: Record<string, unknown>): string =>
  String((l['fields'] as { message?: unknown }).message ?? '');

/**
 * Starts `svc` (tracked in `procs`, so the suite can kill what is left) and waits for its line that
 * starts with `readyPrefix`: the process, and the URL that line names.
 */
export async function startReady(args: string[], readyPrefix: string, procs: SvcProcess[]) {
  const svc = startSvc(args);
  procs.push(svc);
  const line = await svc.waitForLine((l) => message(l).startsWith(readyPrefix));
  return { svc, url: String((line['fields'] as { url?: string }).url ?? '') };
}
