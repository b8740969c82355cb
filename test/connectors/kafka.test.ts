import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InputSink } from '../../src/connectors/input-endpoint.js';
import { kafkaInput } from '../../src/connectors/transports/kafka-input.js';
import type { JsonValue } from '../../src/model/json.js';
import { startConnectorPipeline } from '../support/connector-pipeline.js';
import { startKafka, type TestKafka } from '../support/kafka.js';
import { createTopics, produce, readTopic } from '../support/kafka-client.js';

// kafka_input and kafka_output against a real one-node broker (KRaft, in a container of svc-local/kafka):
// messages reach the table, the view's changes reach the output topic, and a broker that stops
// and comes back costs counted errors, not the pipeline, which then catches up.

let kafka: TestKafka;
let dir: string;
beforeAll(async () => {
  kafka = await startKafka();
  dir = await mkdtemp(join(tmpdir(), 'svc-kafka-conn-'));
});
afterAll(async () => {
  await kafka?.destroy();
  await rm(dir, { recursive: true, force: true });
});

const program = (bootstrap: string, input: string, output: string) => {
  const ins = [
    {
      name: 'k',
      transport: {
        name: 'kafka_input',
        config: { 'bootstrap.servers': bootstrap, topic: input, 'client.id': 'svc-in' },
      },
      format: { name: 'json', config: { update_format: 'insert_delete' } },
    },
  ];
  const outs = [
    {
      name: 'k',
      transport: { name: 'kafka_output', config: { 'bootstrap.servers': bootstrap, topic: output } },
      format: { name: 'json' },
    },
  ];
  return `CREATE TABLE t (id int NOT NULL PRIMARY KEY, v int) WITH ('materialized' = 'true', 'connectors' = '${JSON.stringify(ins)}');
CREATE MATERIALIZED VIEW big WITH ('connectors' = '${JSON.stringify(outs)}') AS SELECT id, v FROM t WHERE v > 10;`;
};

const inserts = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, k) => JSON.stringify({ insert: { id: from + k, v: from + k } }));

describe('kafka connectors', () => {
  it('topic → table → view → topic; a bad message is counted and skipped', async () => {
    await createTopics(kafka.bootstrap, ['in1', 'out1']);
    await produce(kafka.bootstrap, 'in1', [...inserts(0, 20), 'not json', JSON.stringify({ insert: { id: 'x' } })]);
    const p = await startConnectorPipeline(dir, program(kafka.bootstrap, 'in1', 'out1'));
    try {
      await expect.poll(async () => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n, { timeout: 60_000 }).toBe(20);
      const s = await p.stats();
      expect(s.inputs[0]).toMatchObject({ endpoint_name: 't.k', metrics: { total_records: 20, num_parse_errors: 2 } });
      const out = await readTopic(kafka.bootstrap, 'out1', 9);
      expect(
        out
          .map((v) => JSON.parse(v) as { insert: { id: number } })
          .map((e) => e.insert.id)
          .sort((a, b) => a - b),
      ).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19]);
      await expect.poll(async () => (await p.stats()).outputs[0]?.metrics.transmitted_records).toBe(9);
    } finally {
      await p.close();
    }
  });

  it('one document a message (JSON arrays): each message goes in with the position just after it', async () => {
    // A checkpoint may fall between two messages' ingests: each must carry its own position, else
    // the checkpoint records offsets behind the messages its state holds and a resume repeats them.
    await createTopics(kafka.bootstrap, ['docs']);
    await produce(kafka.bootstrap, 'docs', ['[{"id":1}]', '[{"id":2}]', '[{"id":3}]']);
    const run = kafkaInput(
      { 'bootstrap.servers': kafka.bootstrap, topic: 'docs', start_from: 'earliest' },
      't.d',
      true,
    );
    const pushed: { text: string; position: JsonValue | undefined }[] = [];
    const abort = new AbortController();
    const sink: InputSink = {
      signal: abort.signal,
      table: {
        name: 't',
        kind: 'table',
        materialized: false,
        columns: [{ name: 'id', type: 'integer', nullable: true }],
      },
      push: async (text, _header, position) => {
        pushed.push({ text, position });
        if (pushed.length === 3) abort.abort();
      },
      pushChanges: () => Promise.reject(new Error('kafka_input pushes text')),
      transportError: () => undefined, // a failing run rejects: the test fails with its error
      endOfInput: () => undefined,
      ready: () => Promise.resolve(),
    };
    await run(sink);
    expect(pushed).toEqual([1, 2, 3].map((id) => ({ text: `[{"id":${id}}]`, position: { 'docs:0': String(id) } })));
  });

  it('broker stopped and restarted while running: errors counted, no crash, catches up exactly once', async () => {
    await createTopics(kafka.bootstrap, ['in2', 'out2']);
    const p = await startConnectorPipeline(dir, program(kafka.bootstrap, 'in2', 'out2'));
    try {
      await produce(kafka.bootstrap, 'in2', inserts(0, 50));
      await expect.poll(async () => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n, { timeout: 60_000 }).toBe(50);
      await kafka.stop();
      // Input made while the broker is away: the view's changes wait for the output topic.
      await p.app.inject({ method: 'POST', url: '/ingress/t?format=json', payload: inserts(1000, 1010).join('\n') });
      await expect
        .poll(async () => (await p.stats()).connector_stats.num_errors, { timeout: 60_000, interval: 500 })
        .toBeGreaterThan(0);
      expect(p.ctl.status).toBe('Running');
      await kafka.start();
      await produce(kafka.bootstrap, 'in2', inserts(50, 100));
      await expect
        .poll(async () => (await p.query('SELECT count(*) AS n FROM t'))[0]?.n, { timeout: 90_000 })
        .toBe(110);
      const s = await p.stats();
      expect(s.inputs.find((e) => e.endpoint_name === 't.k')?.metrics.total_records).toBe(100);
      // Every view row reached the output topic (at least once; the ids of big are 11..99 and 1000..1009).
      const out = await readTopic(kafka.bootstrap, 'out2', 99, 60_000);
      const ids = new Set(out.map((v) => (JSON.parse(v) as { insert: { id: number } }).insert.id));
      expect(ids.size).toBe(99);
    } finally {
      await p.close();
    }
  });
});
