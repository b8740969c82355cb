import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { pipelineAuth } from '../../src/http/pipeline-token.js';
import { readPipelineKey } from '../../src/store/platform-secret.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { createRegistry } from '../../src/http/metrics.js';
import { createLogger } from '../../src/logging/logger.js';
import type { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { connectPostgres } from '../../src/store/pg-database.js';
import { openPglite } from '../../src/store/pglite-database.js';
import { engineDump } from '../../src/pglite/shipped-dump.js';
import { readBuildInfo } from '../../src/version.js';

// The real API on a real socket, over either backend: a fresh PostgreSQL database per harness (in
// the server the global setup started), or an in-memory PGlite.

export const BACKENDS = ['postgres', 'pglite'] as const;

/**
 * How long a test waits for a compile to finish: a few seconds alone, but over 20 s on 2 cores
 * beside other tests.
 */
export const COMPILE_POLL = { timeout: 45_000, interval: 25 };
export type Backend = (typeof BACKENDS)[number];

export interface Harness {
  url: string;
  db: Database;
  /** JSON log lines the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** The router's own listing of its routes (fastify printRoutes, one path per line). */
  printRoutes(): string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // Tests read members by name; the type of each is asserted where it matters.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = inject('postgresUrl');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client(admin);
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client(admin);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function openBackend(
  backend: Backend,
): Promise<{ db: Database; url?: string; drop: () => Promise<void> }> {
  if (backend === 'pglite') {
    // From the engine's dump (engineDump: from src/, one under tmpdir), as `svc manager`'s
    // compiler loads it: an initdb per harness was seconds of CPU each, for the same empty cluster.
    const db = await openPglite(undefined, { initdbDump: engineDump(), slim: true });
    return { db, drop: async () => undefined };
  }
  const { url, drop } = await createDatabase();
  return { db: connectPostgres(url), url, drop };
}

/** What a test may pass on to the app: auth, where /logs reads pipeline logs, the operator's bounds. */
type HarnessOptions = Pick<ApiDeps, 'apiKey' | 'pipelineLogs' | 'bounds'>;

export async function startHarness(backend: Backend, options: HarnessOptions = {}): Promise<Harness> {
  return serve(await openBackend(backend), options);
}

/** The API on a PostgreSQL the test owns (e.g. one it will stop on purpose). */
export function startHarnessOn(databaseUrl: string): Promise<Harness> {
  return serve({ db: connectPostgres(databaseUrl), drop: async () => undefined }, {});
}

async function serve(
  { db, drop }: { db: Database; drop: () => Promise<void> },
  options: HarnessOptions,
): Promise<Harness> {
  await migrate(db);
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = createLogger({ service: 'manager', json: true, level: 'info', destination });
  const app = buildApp({
    db,
    log,
    build: readBuildInfo(),
    metrics: createRegistry(),
    pipelineAuth: pipelineAuth(await readPipelineKey(db)),
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    db,
    logs,
    printRoutes: () => app.printRoutes({ commonPrefix: false }),
    async request(method, path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (e.g. Prometheus text): tests read `text`.
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
    async close() {
      await app.close();
      await db.close();
      await drop();
    },
  };
}

/** A valid create body; overrides replace members. */
export const pipelineBody = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  program_code: 'CREATE TABLE t (x INT);\nCREATE VIEW v AS SELECT x FROM t;',
  ...overrides,
});
