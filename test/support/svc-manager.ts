import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startReady, type SvcProcess } from './svc-process.js';

// A real `svc manager` child process on its own data dir, with a small client of its HTTP API, and
// what the tests count on the machine: the `svc pipeline` processes the local backend started.

export type Rec = Record<string, unknown> & {
  deployment_error?: { error_code: string; details: Record<string, unknown> };
};

/** Starts the manager (tracked in `procs`, so the suite can kill what is left) and waits until it is ready. */
export async function startManagerClient(dataDir: string, procs: SvcProcess[], extraArgs: string[] = []) {
  const { svc, url } = await startReady(
    ['manager', '--port', '0', '--data-dir', dataDir, ...extraArgs],
    'svc manager ready at',
    procs,
  );
  return { svc, ...apiClient(url) };
}

/** A small client of the HTTP API at `url` (a manager's or an api-server's). */
export function apiClient(url: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, body: json as Rec & string };
  };
  const get = async (name: string) => (await call('GET', `/v0/pipelines/${name}`)).body;
  const until = (name: string, pred: (r: Rec) => boolean, timeout = 90_000) =>
    expect.poll(async () => pred(await get(name)), { timeout, interval: 200 }).toBe(true);
  return { url, call, get, until };
}

/** The pid the local backend recorded for a pipeline's process. */
export const pidOf = (dataDir: string, id: string): number =>
  (JSON.parse(readFileSync(join(dataDir, 'pipelines', id, 'process.json'), 'utf8')) as { pid: number }).pid;

/** Every live `svc pipeline` process started for this data dir, from /proc (one per pipeline, never two). */
export const pipelineProcesses = (dataDir: string): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmd.includes('\0pipeline\0') && cmd.includes(join(dataDir, 'pipelines'));
      } catch {
        return false;
      }
    })
    .map(Number);

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * GET /v0/pipelines/{name}/logs read as the follow stream it is: lines as they arrive, `ended`
 * once the server ends the response, `close()` to disconnect.
 */
export async function followLogs(url: string, name: string) {
  const abort = new AbortController();
  const res = await fetch(`${url}/v0/pipelines/${name}/logs`, { signal: abort.signal });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let partial = '';
    try {
      for await (const chunk of res.body) {
        const parts = (partial + decoder.decode(chunk as Uint8Array, { stream: true })).split('\n');
        partial = parts.pop() ?? '';
        lines.push(...parts);
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    lines,
    ended,
    /** Resolves with the first line that matches, as soon as it arrives. */
    waitFor(pred: (line: string) => boolean): Promise<string> {
      return new Promise((resolve) => {
        const check = () => {
          const found = lines.find(pred);
          if (found !== undefined) resolve(found);
          else waiters.push(check);
        };
        check();
      });
    },
    close: () => abort.abort(),
  };
}
