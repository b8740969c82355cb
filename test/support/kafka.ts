import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../src/runner/backends/local/free-port.js';

// A one-node Apache Kafka broker in KRaft mode (broker and controller in one JVM) for the connector
// tests, from the Maven Central jars test/support/kafka-fetch.sh caches under ~/.cache/svc-kafka.
// Its own temp dir and free loopback ports; `stop` and `start` again keep both (the same broker
// comes back with its data), `destroy` kills it and removes the dir. This is the one way the tests
// start Kafka: no Docker engine is needed.

export interface TestKafka {
  bootstrap: string;
  /** Stops the broker (SIGTERM; SIGKILL after 20 s), keeping its data and port. */
  stop(): Promise<void>;
  /** Starts the stopped broker again on the same port. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const STARTUP_MS = 90_000;

function libs(): string {
  const script = new URL('./kafka-fetch.sh', import.meta.url).pathname;
  return execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** A KRaft cluster id: 16 random bytes, base64url without padding. */
const clusterId = (): string => randomBytes(16).toString('base64url');

function properties(dir: string, port: number, controllerPort: number): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${join(dir, 'data')}`,
    'num.partitions=1',
    'auto.create.topics.enable=true',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    '',
  ].join('\n');
}

const LOG4J = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders><Console name="out" target="SYSTEM_OUT"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console></Appenders>
  <Loggers><Root level="WARN"><AppenderRef ref="out"/></Root>
    <Logger name="kafka.server.KafkaRaftServer" level="INFO"/><Logger name="kafka.server.BrokerServer" level="INFO"/></Loggers>
</Configuration>
`;

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startKafka(): Promise<TestKafka> {
  const lib = libs();
  const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-'));
  const port = await freeLoopbackPort();
  const controllerPort = await freeLoopbackPort();
  const config = join(dir, 'server.properties');
  writeFileSync(config, properties(dir, port, controllerPort));
  writeFileSync(join(dir, 'log4j2.xml'), LOG4J);
  const java = (main: string, args: string[]) => [
    '-Xms256m',
    '-Xmx512m',
    '-XX:+UseSerialGC',
    `-Dlog4j2.configurationFile=${join(dir, 'log4j2.xml')}`,
    '-cp',
    `${lib}/*`,
    main,
    ...args,
  ];
  try {
    execFileSync('java', java('kafka.tools.StorageTool', ['format', '-t', clusterId(), '-c', config]), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Its own words, not only "Command failed" (seen once on a loaded machine, cause unknown).
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`kafka storage format failed: ${String(stderr ?? '')}${String(stdout ?? '')}`.slice(0, 4000), {
      cause: error,
    });
  }
  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    const proc = spawn('java', java('kafka.Kafka', [config]), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const keep = (b: Buffer) => (output = (output + b.toString()).slice(-20_000));
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const deadline = Date.now() + STARTUP_MS;
    // Ready once the broker has started (its log says so) and its port takes connections.
    while (!/Kafka Server started|\[BrokerServer id=1\] Transition from STARTING to STARTED/.test(output)) {
      if (proc.exitCode !== null) throw new Error(`kafka exited with ${proc.exitCode}:\n${output}`);
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`kafka did not start in ${STARTUP_MS} ms:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    while (!(await portOpen(port))) await new Promise((r) => setTimeout(r, 100));
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    bootstrap: `127.0.0.1:${port}`,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
