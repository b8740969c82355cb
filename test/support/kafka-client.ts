import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';

// Plain clients of the test broker: create topics, produce lines, read a topic from its start.

export async function createTopics(bootstrap: string, topics: string[]): Promise<void> {
  const admin = new Admin({ clientId: 'svc-test-admin', bootstrapBrokers: [bootstrap] });
  try {
    await admin.createTopics({ topics, partitions: 1, replicas: 1 });
  } finally {
    await admin.close();
  }
}

export async function produce(bootstrap: string, topic: string, values: string[]): Promise<void> {
  const producer = new Producer({
    clientId: 'svc-test-producer',
    bootstrapBrokers: [bootstrap],
    serializers: stringSerializers,
  });
  try {
    await producer.send({ messages: values.map((value) => ({ topic, value })) });
  } finally {
    await producer.close();
  }
}

/** Every message of the topic until `count` arrived (or `ms` passed): their values, in order. */
export async function readTopic(bootstrap: string, topic: string, count: number, ms = 30_000): Promise<string[]> {
  const consumer = new Consumer({
    clientId: 'svc-test-reader',
    groupId: `svc-test-reader-${Math.random().toString(36).slice(2)}`,
    bootstrapBrokers: [bootstrap],
    deserializers: stringDeserializers,
  });
  const values: string[] = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false, maxWaitTime: 100 });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stream.on('data', (m: { value: string }) => {
        values.push(m.value);
        if (values.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await stream.close();
  } finally {
    await consumer.close(true);
  }
  return values;
}
