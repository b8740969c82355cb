import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProgram, connectedDatabase } from '../support/connector-pipeline.js';
import { deploymentOf, writeProgramArtifact } from '../support/engine-artifact.js';
import { startKafka, type TestKafka } from '../support/kafka.js';
import { createTopics, produce, readTopic } from '../support/kafka-client.js';

// End to end through a real pipeline process (`svc pipeline`, src/cli.ts under tsx): Kafka topic →
// table → view → Kafka topic and → PostgreSQL table. A checkpoint, more input, then kill -9: the
// restarted process resumes from the checkpoint and reads Kafka from the offsets it recorded, so
// the table holds every event exactly once; then a suspend (checkpoint) and a graceful stop and
// start, exact again. The outputs get the view's changes at least once and end equal to the view.

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

let kafka: TestKafka;
let dir: string;
let db: Awaited<ReturnType<typeof connectedDatabase>>;
let client: pg.Client;
beforeAll(async () => {
  kafka = await startKafka();
  dir = await mkdtemp(join(tmpdir(), 'svc-e2e-conn-'));
  db = await connectedDatabase();
  client = db.client;
});
afterAll(async () => {
  await db?.drop();
  await kafka?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Proc {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

async function startPipeline(configFile: string): Promise<Proc> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'pipeline', '--config-file', configFile, '--port', '0', '--bind-address', '127.0.0.1'],
    { env: { ...process.env, SVC_LOG_JSON: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pipeline did not listen:\n${out}`)), 120_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`pipeline exited ${code}:\n${out}`)));
  });
  return { child, url, exited };
}

const getJson = async <T>(url: string): Promise<T> => (await fetch(url)).json() as Promise<T>;
const count = async (p: Proc, sql: string): Promise<number> => {
  const text = await (await fetch(`${p.url}/query?format=json&sql=${encodeURIComponent(sql)}`)).text();
  return text.trim() === '' ? -1 : ((JSON.parse(text.split('\n')[0] ?? '{}') as { n?: number }).n ?? -1);
};
const ingested = async (p: Proc): Promise<number> => {
  const stats = await getJson<{ inputs: { endpoint_name: string; metrics: { total_records: number } }[] }>(
    `${p.url}/stats`,
  ).catch(() => undefined);
  return stats?.inputs.find((e) => e.endpoint_name === 'events.kafka')?.metrics.total_records ?? -1;
};

const events = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, k) => JSON.stringify({ insert: { id: from + k, k: (from + k) % 5 } }));

describe('connectors end to end', () => {
  it('Kafka → table → view → Kafka and PostgreSQL, across a checkpoint and a kill -9', async () => {
    await createTopics(kafka.bootstrap, ['events', 'totals']);
    await client.query('CREATE TABLE totals (k int PRIMARY KEY, n bigint)');
    const ins = [
      {
        name: 'kafka',
        transport: { name: 'kafka_input', config: { 'bootstrap.servers': kafka.bootstrap, topic: 'events' } },
        format: { name: 'json' },
      },
    ];
    const outs = [
      {
        name: 'kafka',
        transport: { name: 'kafka_output', config: { 'bootstrap.servers': kafka.bootstrap, topic: 'totals' } },
        format: { name: 'json' },
      },
      {
        name: 'pg',
        transport: { name: 'postgres_output', config: { uri: db.url, table: 'totals', mode: 'upsert', key: ['k'] } },
      },
    ];
    // No primary key: an event read twice would count twice.
    const program = `CREATE TABLE events (id int, k int) WITH ('materialized' = 'true', 'connectors' = '${JSON.stringify(ins)}');
CREATE MATERIALIZED VIEW totals WITH ('connectors' = '${JSON.stringify(outs)}') AS SELECT k, count(*) AS n FROM events GROUP BY k;`;
    const info = await compileProgram(program);
    const artifact = await writeProgramArtifact(dir, program, info);
    const configFile = join(dir, 'deployment.json');
    const config = deploymentOf(
      artifact,
      { fault_tolerance: { checkpoint_interval_secs: 3600 } },
      join(dir, 'storage'),
    );
    await writeFile(configFile, JSON.stringify(config));

    let p = await startPipeline(configFile);
    try {
      await produce(kafka.bootstrap, 'events', events(0, 100));
      await expect.poll(() => ingested(p), { timeout: 60_000, interval: 200 }).toBe(100);
      await expect.poll(() => count(p, 'SELECT count(*) AS n FROM events'), { timeout: 30_000 }).toBe(100);
      const checkpoint = await fetch(`${p.url}/checkpoint`, { method: 'POST' });
      expect(checkpoint.status).toBe(200);
      await produce(kafka.bootstrap, 'events', events(100, 150));
      await expect.poll(() => ingested(p), { timeout: 60_000, interval: 200 }).toBe(150);
      p.child.kill('SIGKILL');
      await p.exited;

      await produce(kafka.bootstrap, 'events', events(150, 200));
      p = await startPipeline(configFile);
      // The checkpoint held 100 events; Kafka is read again from offset 100: 100 more, each once.
      await expect
        .poll(() => count(p, 'SELECT count(*) AS n FROM events'), { timeout: 90_000, interval: 300 })
        .toBe(200);
      expect(await count(p, 'SELECT count(DISTINCT id) AS n FROM events')).toBe(200);
      expect(await ingested(p)).toBe(100);
      const view = [0, 1, 2, 3, 4].map((k) => ({ k, n: 40 }));
      await expect
        .poll(async () => (await client.query('SELECT k, n::int AS n FROM totals ORDER BY k')).rows, {
          timeout: 60_000,
        })
        .toEqual(view);
      // A graceful stop (suspend: a checkpoint, then the process ends) and a start: exact again.
      await produce(kafka.bootstrap, 'events', events(200, 250));
      await expect.poll(() => ingested(p), { timeout: 60_000, interval: 200 }).toBe(150);
      expect((await fetch(`${p.url}/suspend`, { method: 'POST' })).status).toBe(200);
      p.child.kill('SIGTERM');
      await p.exited;
      await produce(kafka.bootstrap, 'events', events(250, 300));
      p = await startPipeline(configFile);
      await expect
        .poll(() => count(p, 'SELECT count(*) AS n FROM events'), { timeout: 90_000, interval: 300 })
        .toBe(300);
      expect(await count(p, 'SELECT count(DISTINCT id) AS n FROM events')).toBe(300);
      const after = [0, 1, 2, 3, 4].map((k) => ({ k, n: 60 }));
      await expect
        .poll(async () => (await client.query('SELECT k, n::int AS n FROM totals ORDER BY k')).rows, {
          timeout: 60_000,
        })
        .toEqual(after);
      // The output topic: at least once; the last value of each group is the view's.
      const messages = (await readTopic(kafka.bootstrap, 'totals', 10_000, 5_000)).map(
        (v) => JSON.parse(v) as { insert?: { k: number; n: number } },
      );
      const last = new Map<number, number>();
      for (const m of messages) if (m.insert) last.set(m.insert.k, m.insert.n);
      expect([...last].sort(([a], [b]) => a - b).map(([k, n]) => ({ k, n }))).toEqual(after);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});
