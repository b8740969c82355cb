// kafka_input: a consumer of the topics. Where it reads is the connector's own business, not the
// consumer group's: it keeps the next offset of each partition it has handed to the engine, and a
// checkpoint records them (the endpoint's position), so a resume after a stop or a kill -9 starts
// exactly after what the checkpoint holds. Without a position it starts from `start_from`. A broker
// that goes away makes the consumer fail; the endpoint counts the error and runs this again after
// a back-off, and the new consumer starts from the offsets in memory: nothing lost, nothing twice.
import { randomUUID } from 'node:crypto';
import { Consumer, type Message, stringDeserializers } from '@platformatic/kafka';
import { isObject, type JsonValue } from '../../model/json.js';
import { sleep } from '../backoff.js';
import type { InputRun, InputSink } from '../input-endpoint.js';
import { clientOptions, type KafkaConfig } from './kafka-options.js';

const BATCH_MESSAGES = 1_000;
const DRAIN_MS = 10;
/** The consumer's stream is paused while this many messages wait for the engine. */
const HIGH_WATER = 10_000;

type Msg = Message<string, string, string, string>;

/** A position: "topic:partition" → the next offset to read, as a decimal string (offsets are 64-bit). */
function offsetsOf(resume: JsonValue | undefined): Map<string, bigint> {
  const next = new Map<string, bigint>();
  if (!isObject(resume)) return next;
  for (const [k, v] of Object.entries(resume)) if (typeof v === 'string' && /^\d+$/.test(v)) next.set(k, BigInt(v));
  return next;
}

const positionOf = (next: Map<string, bigint>): JsonValue =>
  Object.fromEntries([...next].map(([k, v]) => [k, v.toString()]));

const keyOf = (m: Msg): string => `${m.topic}:${m.partition}`;

/** Hands messages to the engine; `next` moves past each only once the engine has it (a failed ingest is read again). */
async function hand(sink: InputSink, fresh: Msg[], next: Map<string, bigint>, perMessage: boolean): Promise<void> {
  if (!perMessage) {
    const after = new Map(next);
    for (const m of fresh) after.set(keyOf(m), m.offset + 1n);
    await sink.push(fresh.map((m) => m.value ?? '').join('\n'), false, positionOf(after));
    for (const [k, v] of after) next.set(k, v);
    return;
  }
  // Each message is an ingest of its own, with the position just after it: a checkpoint taken
  // between two of them records exactly the messages its state holds.
  for (const m of fresh) {
    const after = new Map(next).set(keyOf(m), m.offset + 1n);
    await sink.push(m.value ?? '', true, positionOf(after));
    next.set(keyOf(m), m.offset + 1n);
  }
}

export function kafkaInput(
  config: KafkaConfig & { start_from: 'earliest' | 'latest'; topic?: string; topics?: string[]; 'group.id'?: string },
  endpointName: string,
  /** Each message is a document of its own (a JSON array, a CSV file with a header line). */
  perMessage: boolean,
  resume?: JsonValue,
): InputRun {
  const topics = config.topics ?? (config.topic === undefined ? [] : [config.topic]);
  const { options } = clientOptions(config, `svc-${endpointName}`);
  const next = offsetsOf(resume);
  return async (sink) => {
    // The group only assigns partitions (offsets are the connector's own): without a group.id each
    // consumer gets a group of its own, so a consumer made after a broker failure does not wait for
    // the dead one's session to time out before it is given the partitions.
    const consumer = new Consumer({
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
      heartbeatInterval: 1_000,
      ...options,
      groupId: config['group.id'] ?? `svc-${endpointName}-${randomUUID()}`,
      deserializers: stringDeserializers,
    });
    try {
      const offsets = [...next].map(([key, offset]) => {
        const at = key.lastIndexOf(':');
        return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)), offset };
      });
      const stream = await consumer.consume({
        topics,
        ...(offsets.length > 0 ? { mode: 'manual' as const, offsets } : { mode: config.start_from }),
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
        // A message at or before the position was taken already (a consumer restarted mid-batch).
        const fresh = batch.filter((m) => m.offset >= (next.get(keyOf(m)) ?? 0n));
        if (fresh.length === 0) continue;
        await hand(sink, fresh, next, perMessage);
      }
    } finally {
      await consumer.close(true).catch(() => undefined);
    }
  };
}
