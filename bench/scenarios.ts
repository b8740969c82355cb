import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { type CounterDelta, type Counters, settle } from './counters.js';
import { pipelineName } from './seed.js';

// The measured requests. Each runs a short discarded warm-up, then `duration` seconds with a fixed
// number of connections, each connection cycling through the scenario's paths.

export interface Scenario {
  id: string;
  title: string;
  paths: string[];
}

export function scenarios(count: number): Scenario[] {
  // A few names spread over the table, so no single row or index page is all that is measured.
  const names = [0, 0.25, 0.5, 0.75, 1].map((f) => pipelineName(Math.min(count - 1, Math.floor(f * count))));
  return [
    {
      id: 'list-status',
      title: `GET /v0/pipelines?selector=status (${count.toLocaleString('en-US')})`,
      paths: ['/v0/pipelines?selector=status'],
    },
    {
      id: 'get-all',
      title: 'GET /v0/pipelines/{name}?selector=all',
      paths: names.map((n) => `/v0/pipelines/${n}?selector=all`),
    },
    {
      id: 'get-status',
      title: 'GET /v0/pipelines/{name}?selector=status',
      paths: names.map((n) => `/v0/pipelines/${n}?selector=status`),
    },
  ];
}

export interface RunOptions {
  duration: number;
  connections: number;
  warmup: number;
}

export interface Measurement {
  scenario: Scenario;
  requestsPerSecond: number;
  requests: number;
  latency: { p50: number; p97_5: number; p99: number; max: number };
  megabytesPerSecond: number;
  bytesPerResponse: number;
  errors: number;
  non2xx: number;
  /** PostgreSQL I/O of the measured run (warm-up included), per request. */
  toastBlocksPerRequest: number;
  heapBlocksPerRequest: number;
  counters: CounterDelta;
  /** Settled counters after the run: the next scenario's baseline. */
  after: Counters;
  load1: number;
}

/** Slow answers (the whole list under 10 connections) must count as latency, not time out. */
const TIMEOUT_S = 120;

/** Brackets the measured run (not the warm-up), e.g. to CPU-profile exactly it. */
export interface RunHooks {
  beforeRun?(): Promise<void>;
  afterRun?(): Promise<void>;
}

export async function runScenario(
  apiUrl: string,
  databaseUrl: string,
  s: Scenario,
  o: RunOptions,
  before: Counters,
  hooks: RunHooks = {},
): Promise<Measurement> {
  const common = {
    url: apiUrl,
    connections: o.connections,
    timeout: TIMEOUT_S,
    requests: s.paths.map((path) => ({ method: 'GET' as const, path })),
  };
  const warm = await autocannon({ ...common, duration: o.warmup, title: `${s.id} warm-up` });
  await hooks.beforeRun?.();
  const r = await autocannon({ ...common, duration: o.duration, title: s.id });
  await hooks.afterRun?.();
  // Both runs reached the database; requests still in flight at the end only add scans.
  const answered = warm['2xx'] + r['2xx'];
  const load1 = loadavg()[0] ?? 0;
  const { delta: counters, now: after } = await settle(databaseUrl, before, answered);
  const perRequest = (n: number): number => (answered > 0 ? n / answered : 0);
  return {
    scenario: s,
    requestsPerSecond: r.requests.average,
    requests: r.requests.total,
    latency: { p50: r.latency.p50, p97_5: r.latency.p97_5, p99: r.latency.p99, max: r.latency.max },
    megabytesPerSecond: r.throughput.average / 1e6,
    bytesPerResponse: r.requests.total > 0 ? r.throughput.total / r.requests.total : 0,
    errors: r.errors + warm.errors,
    non2xx: r.non2xx + warm.non2xx,
    toastBlocksPerRequest: perRequest(counters.toastBlocks),
    heapBlocksPerRequest: perRequest(counters.heapBlocks),
    counters,
    after,
    load1,
  };
}
