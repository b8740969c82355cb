import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Consumer, type Message, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { startConnectorPipeline } from '../test/support/connector-pipeline.js';
import { startKafka, type TestKafka } from '../test/support/kafka.js';
import { createTopics, produce } from '../test/support/kafka-client.js';
import { benchFlags, integerFlag, machineTable, runBench, say, sleep, uptime, writeResult } from './common.js';
import { machineFacts } from './report.js';

// `npm run bench:connectors -- [--records 200000] [--latency 10] [--record]`
// Issue 16: Kafka → pipeline (a GROUP BY view) → Kafka, against the ceiling the connector could
// reach: a plain consumer → producer copy through the same client, on the same broker, in the same
// run. Throughput: N records produced beforehand, read from the start; done when the view's output
// says it counted all N (the copy: when it produced N). Latency: 100 records every 100 ms stamped
// with the time they were produced; an output message's latency is its arrival minus the newest
// stamp it covers (the view keeps max(ts) per group).

const usage = `usage: npm run bench:connectors -- [options]
  --records N   records of the throughput phase (default 200000)
  --latency S   seconds of the latency phase at 1,000 records/s (default 10; 0 skips it)
  --record      also write bench/results/<date>-connectors.md`;
const values = benchFlags(usage, {
  records: { type: 'string', default: '200000' },
  latency: { type: 'string', default: '10' },
  record: { type: 'boolean', default: false },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const LATENCY_S = integerFlag('latency', values.latency, 0, 3600);
const GROUPS = 10;
const BATCH = 5_000;

type Msg = Message<string, string, string, string>;
const percentile = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : ([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN);
const event = (id: number, ts: number) => JSON.stringify({ insert: { id, k: id % GROUPS, ts } });

async function produceRecords(bootstrap: string, topic: string, from: number, n: number, ts = 0): Promise<void> {
  for (let i = from; i < from + n; i += BATCH) {
    const values = Array.from({ length: Math.min(BATCH, from + n - i) }, (_, k) => event(i + k, ts));
    await produce(bootstrap, topic, values);
  }
}

/** Reads a topic from its start, calling `each` per message until it returns true (or `ms` passed). */
async function follow(
  bootstrap: string,
  topic: string,
  each: (m: Msg) => boolean,
  ms: number,
  mode: 'earliest' | 'latest' = 'earliest',
): Promise<void> {
  const consumer = new Consumer({
    clientId: 'bench-reader',
    groupId: `bench-${Math.random().toString(36).slice(2)}`,
    bootstrapBrokers: [bootstrap],
    deserializers: stringDeserializers,
  });
  try {
    const stream = await consumer.consume({ topics: [topic], mode, autocommit: false, maxWaitTime: 10 });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${topic}: not done in ${ms} ms`)), ms);
      stream.on('data', (m: Msg) => {
        if (each(m)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await stream.close();
  } finally {
    await consumer.close(true);
  }
}

/**
 * The ceiling: consume `from` and produce every value to `to` in batches of 1,000 (each sent once
 * the previous one is acknowledged, as the output connector does), until `done`.
 */
async function copy(
  bootstrap: string,
  from: string,
  to: string,
  done: (copied: number) => boolean,
  mode: 'earliest' | 'latest' = 'earliest',
): Promise<void> {
  const producer = new Producer({
    clientId: 'bench-copy',
    bootstrapBrokers: [bootstrap],
    serializers: stringSerializers,
  });
  const queue: string[] = [];
  let read = false;
  const reading = follow(
    bootstrap,
    from,
    (m) => {
      queue.push(m.value);
      return (read = done(queue.length + copied));
    },
    600_000,
    mode,
  );
  let copied = 0;
  try {
    while (!read || queue.length > 0) {
      if (queue.length === 0) {
        await sleep(1);
        continue;
      }
      const batch = queue.splice(0, 1000);
      await producer.send({ messages: batch.map((value) => ({ topic: to, value })) });
      copied += batch.length;
    }
    await reading;
  } finally {
    await producer.close();
  }
}

/** The view's output: per group the latest count; done once they sum to `total`. */
function counts(total: number, latencies?: number[]) {
  const latest = new Map<number, number>();
  return (m: Msg): boolean => {
    const e = JSON.parse(m.value) as { insert?: { k: number; n: number; ts: number } };
    if (!e.insert) return false;
    latest.set(e.insert.k, e.insert.n);
    if (e.insert.ts > 0) latencies?.push(Date.now() - e.insert.ts); // ts 0: the throughput phase
    return [...latest.values()].reduce((a, b) => a + b, 0) >= total;
  };
}

const program = (bootstrap: string) => {
  const ins = [
    { name: 'k', transport: { name: 'kafka_input', config: { 'bootstrap.servers': bootstrap, topic: 'in' } } },
  ];
  const outs = [
    { name: 'k', transport: { name: 'kafka_output', config: { 'bootstrap.servers': bootstrap, topic: 'out' } } },
  ];
  return `CREATE TABLE ev (id bigint, k int, ts bigint) WITH ('connectors' = '${JSON.stringify(ins)}');
CREATE VIEW agg WITH ('connectors' = '${JSON.stringify(outs)}') AS SELECT k, count(*) AS n, max(ts) AS ts FROM ev GROUP BY k;`;
};

async function latencyPhase(kafka: TestKafka, topic: string, start: number, reader: Promise<void>): Promise<void> {
  for (let t = 0, id = start; t < LATENCY_S * 10; t++, id += 100) {
    await produceRecords(kafka.bootstrap, topic, id, 100, Date.now());
    await sleep(100);
  }
  await reader;
}

await runBench(async (cleanups) => {
  const facts = machineFacts('(not used)');
  const kafka = await startKafka();
  cleanups.push(() => kafka.destroy());
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-conn-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  await createTopics(kafka.bootstrap, ['in', 'out', 'copy']);
  say(`producing ${RECORDS} records`);
  await produceRecords(kafka.bootstrap, 'in', 0, RECORDS);

  say('ceiling: consumer → producer copy');
  let t0 = performance.now();
  await copy(kafka.bootstrap, 'in', 'copy', (n) => n >= RECORDS);
  const ceiling = RECORDS / ((performance.now() - t0) / 1000);

  say('pipeline: kafka_input → GROUP BY → kafka_output');
  const p = await startConnectorPipeline(dir, program(kafka.bootstrap));
  cleanups.push(() => p.close());
  t0 = performance.now();
  await p.app.inject({ method: 'POST', url: '/tables/ev/connectors/k/start' });
  await follow(kafka.bootstrap, 'out', counts(RECORDS), 600_000);
  const pipeline = RECORDS / ((performance.now() - t0) / 1000);

  const viaPipeline: number[] = [];
  const viaCopy: number[] = [];
  if (LATENCY_S > 0) {
    const total = RECORDS + LATENCY_S * 1000;
    say(`latency: ${LATENCY_S} s at 1,000 records/s`);
    const outReader = follow(kafka.bootstrap, 'out', counts(total, viaPipeline), 600_000);
    const copyDone = copy(kafka.bootstrap, 'in', 'copy', (n) => n >= LATENCY_S * 1000, 'latest');
    const copyReader = follow(
      kafka.bootstrap,
      'copy',
      (m) => {
        const e = JSON.parse(m.value) as { insert: { ts: number } };
        if (e.insert.ts > 0) viaCopy.push(Date.now() - e.insert.ts);
        return viaCopy.length >= LATENCY_S * 1000;
      },
      600_000,
      'latest',
    );
    await sleep(3000); // the readers join their groups before the first stamped record
    await latencyPhase(
      kafka,
      'in',
      RECORDS,
      Promise.all([outReader, copyDone, copyReader]).then(() => undefined),
    );
  }
  const live = viaPipeline;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const ms = (xs: number[]) => `${percentile(xs, 0.5).toFixed(1)} / ${percentile(xs, 0.99).toFixed(1)}`;
  const report = `# bench:connectors — ${facts.date}

${RECORDS.toLocaleString('en-US')} JSON records on a one-node Kafka 4.1.0 broker (a container of svc-local/kafka on this machine, test/support/kafka.ts), read from the start.
Pipeline: kafka_input → \`SELECT k, count(*), max(ts) FROM ev GROUP BY k\` (${GROUPS} groups) → kafka_output, in process.
Ceiling: a plain consumer → producer copy through the same client (@platformatic/kafka), same run.

| measure | pipeline | plain copy | goal |
|---|---|---|---|
| sustained records/s | ${fmt(pipeline)} | ${fmt(ceiling)} | pipeline ≥ 85 % of the copy (issue 28) (${((100 * pipeline) / ceiling).toFixed(1)} %) |
| end-to-end latency p50 / p99 ms at 1,000 records/s | ${LATENCY_S > 0 ? ms(live) : 'skipped'} | ${LATENCY_S > 0 ? ms(viaCopy) : 'skipped'} | |

${machineTable(facts, uptime(), { postgres: undefined })}`;
  process.stdout.write(`${report}\n`);
  if (values.record) say(`recorded ${writeResult('connectors', facts.date, report)}`);
  return true;
});
