// kafka_output: each record of a batch is one message to the topic (its value; no key). A failed
// send rejects, the endpoint counts it and sends the batch again after a back-off with a new
// producer (a producer whose broker went away may hold stale connections).
import { Producer, stringSerializers } from '@platformatic/kafka';
import type { OutputTransport } from '../output-endpoint.js';
import { clientOptions, type KafkaConfig } from './kafka-options.js';

export function kafkaOutput(config: KafkaConfig & { topic: string }, endpointName: string): OutputTransport {
  const { options } = clientOptions(config, `svc-${endpointName}`);
  let producer: Producer<string, string, string, string> | undefined;
  return {
    async send(batch) {
      producer ??= new Producer({ ...options, serializers: stringSerializers });
      try {
        await producer.send({ messages: batch.records.map((value) => ({ topic: config.topic, value })) });
      } catch (error) {
        const dead = producer;
        producer = undefined;
        await dead.close(true).catch(() => undefined);
        throw error;
      }
      return batch.records.reduce((n, r) => n + Buffer.byteLength(r), 0);
    },
    async close() {
      await producer?.close(true).catch(() => undefined);
    },
  };
}
