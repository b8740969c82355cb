// kafka_input: a consumer of the topics in the connector's group (default: one of its own, named
// after the endpoint). It resumes from the group's committed offsets, or from `start_from` when the
// group has none. Messages are ingested in batches and their offsets committed once the engine has
// buffered them. A broker that goes away makes the consumer fail; the endpoint counts the error and
// starts a new consumer after a back-off, which resumes from the committed offsets (nothing lost,
// nothing taken twice while the pipeline runs).
import { Consumer, type Message, stringDeserializers } from '@platformatic/kafka';
import { sleep } from '../backoff.js';
import type { InputRun } from '../input-endpoint.js';
import { clientOptions, type KafkaConfig } from './kafka-options.js';

const BATCH_MESSAGES = 1_000;
const DRAIN_MS = 10;
/** The consumer's stream is paused while this many messages wait for the engine. */
const HIGH_WATER = 10_000;

type Msg = Message<string, string, string, string>;

export function kafkaInput(
  config: KafkaConfig & { start_from: 'earliest' | 'latest'; topic?: string; topics?: string[]; 'group.id'?: string },
  endpointName: string,
  /** Each message is a document of its own (a JSON array, a CSV file with a header line). */
  perMessage: boolean,
): InputRun {
  const topics = config.topics ?? (config.topic === undefined ? [] : [config.topic]);
  const { options } = clientOptions(config, `svc-${endpointName}`);
  return async (sink) => {
    const consumer = new Consumer({
      ...options,
      groupId: config['group.id'] ?? `svc-${endpointName}`,
      deserializers: stringDeserializers,
    });
    try {
      const stream = await consumer.consume({
        topics,
        mode: 'committed',
        fallbackMode: config.start_from,
        autocommit: false,
        maxWaitTime: 100,
      });
      const pending: Msg[] = [];
      let error: unknown;
      stream.on('data', (m: Msg) => {
        pending.push(m);
        if (pending.length >= HIGH_WATER) stream.pause();
      });
      stream.on('error', (e: unknown) => (error = e));
      stream.on('close', () => (error ??= new Error('the Kafka consumer stream closed')));
      while (!sink.signal.aborted) {
        if (error !== undefined) throw error;
        if (pending.length === 0) {
          await sleep(DRAIN_MS, sink.signal);
          continue;
        }
        await sink.ready();
        const batch = pending.splice(0, BATCH_MESSAGES);
        if (stream.isPaused() && pending.length < HIGH_WATER / 2) stream.resume();
        if (perMessage) for (const m of batch) await sink.push(m.value ?? '', true);
        else await sink.push(batch.map((m) => m.value ?? '').join('\n'));
        // The last message of each partition commits everything before it in that partition.
        const last = new Map<string, Msg>();
        for (const m of batch) last.set(`${m.topic}/${m.partition}`, m);
        for (const m of last.values()) await m.commit();
      }
    } finally {
      await consumer.close(true).catch(() => undefined);
    }
  };
}
