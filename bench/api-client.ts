import { sleep } from './common.js';

// The few calls of the /v0 API the benchmarks that drive a real `svc manager` make.

export interface StatusRecord {
  name: string;
  program_status: string;
  deployment_status: string;
  deployment_error?: unknown;
  deployment_runtime_status_since?: string;
  refresh_version?: number;
}

/** One API call; a non-2xx answer throws with its body. */
export async function call(method: string, url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export const list = async (url: string): Promise<StatusRecord[]> =>
  (await call('GET', `${url}/v0/pipelines?selector=status`)) as StatusRecord[];

/** Polls the status list until `done` holds for every named pipeline (a failed one throws). */
export async function waitAll(
  url: string,
  names: string[],
  done: (r: StatusRecord) => boolean,
  what: string,
  { timeoutMs = 120_000, pollMs = 50 } = {},
): Promise<void> {
  const wanted = new Set(names);
  const started = performance.now();
  for (;;) {
    const mine = (await list(url)).filter((r) => wanted.has(r.name));
    if (mine.length === names.length && mine.every(done)) return;
    const broken = mine.find((r) => r.deployment_error || /Error$/.test(r.program_status));
    if (broken) throw new Error(`${broken.name} failed while waiting for ${what}: ${JSON.stringify(broken)}`);
    if (performance.now() - started > timeoutMs) throw new Error(`not all ${what} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}
