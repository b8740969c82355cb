import { type ContainerServer, type TestContainer, startContainer } from './containers/container.js';
import { testDocker } from './containers/docker.js';

// A one-node Apache Kafka broker in KRaft mode (broker and controller in one JVM) for the connector
// tests and bench/connectors.ts: a container of svc-local/kafka (the Maven Central jars of
// kafka-fetch.sh on Debian's Java, built by test/cluster/node/images.sh --connectors), started
// through testcontainers by containers/container.ts, the one way the tests start a server in a
// container. Its client port is published on a loopback port picked free and advertised as
// 127.0.0.1:<that port>; `stop` (SIGTERM, SIGKILL after 20 s) and `start` again keep both (the same
// broker comes back with its data), `destroy` removes the container.

export interface TestKafka extends ContainerServer {
  bootstrap: string;
}

const CLIENT_PORT = 9092;

export interface KafkaOptions {
  /** The KRaft cluster id its storage is formatted with (default: a random one). */
  clusterId?: string;
}

export async function startKafka(options: KafkaOptions = {}): Promise<TestKafka> {
  const container: TestContainer = await startContainer({
    kind: 'kafka',
    image: testDocker().kafkaImage,
    ports: [CLIENT_PORT],
    env: (ports) => ({
      KAFKA_ADVERTISED: `127.0.0.1:${ports.get(CLIENT_PORT)}`,
      ...(options.clusterId === undefined ? {} : { KAFKA_CLUSTER_ID: options.clusterId }),
    }),
    // Ready once the broker has started (its log says so).
    ready: /Kafka Server started|\[BrokerServer id=1\] Transition from STARTING to STARTED/,
    startupMs: 90_000,
    stopGraceMs: 20_000,
  });
  return { ...container, bootstrap: `127.0.0.1:${container.hostPort(CLIENT_PORT)}` };
}
