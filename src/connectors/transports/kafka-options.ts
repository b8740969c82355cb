// The Kafka client options users write in the established ecosystem (librdkafka's names:
// "client.id", "sasl.username", "session.timeout.ms", …) → @platformatic/kafka's options. Members
// without a counterpart are reported once in the log and otherwise ignored.

export type KafkaConfig = Record<string, string | number | boolean | string[] | undefined>;

/** Members the transports read themselves (not client options). */
const OWN = new Set(['bootstrap.servers', 'topic', 'topics', 'group.id', 'start_from']);

export interface ClientOptions {
  clientId: string;
  bootstrapBrokers: string[];
  /** Failed requests are retried this often by the client before an error reaches the connector. */
  retries: number;
  retryDelay: number;
  timeout?: number;
  sessionTimeout?: number;
  heartbeatInterval?: number;
  sasl?: { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; username: string; password: string };
  tls?: Record<string, never>;
}

const int = (v: unknown): number | undefined => (v === undefined ? undefined : Number(v));

export function clientOptions(config: KafkaConfig, clientId: string): { options: ClientOptions; ignored: string[] } {
  const options: ClientOptions = {
    clientId: String(config['client.id'] ?? clientId),
    bootstrapBrokers: String(config['bootstrap.servers'])
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    retries: 2,
    retryDelay: 250,
  };
  const known = new Set(['client.id']);
  const num = (key: string, set: (n: number) => void) => {
    const n = int(config[key]);
    if (n !== undefined && Number.isFinite(n)) set(n);
    known.add(key);
  };
  num('socket.timeout.ms', (n) => (options.timeout = n));
  num('session.timeout.ms', (n) => (options.sessionTimeout = n));
  num('heartbeat.interval.ms', (n) => (options.heartbeatInterval = n));
  num('retries', (n) => (options.retries = n));
  num('retry.backoff.ms', (n) => (options.retryDelay = n));
  const protocol = String(config['security.protocol'] ?? 'PLAINTEXT').toUpperCase();
  known.add('security.protocol');
  if (protocol === 'SSL' || protocol === 'SASL_SSL') options.tls = {};
  for (const k of ['sasl.mechanism', 'sasl.mechanisms', 'sasl.username', 'sasl.password']) known.add(k);
  if (protocol.startsWith('SASL'))
    options.sasl = {
      mechanism: String(config['sasl.mechanism'] ?? config['sasl.mechanisms'] ?? 'PLAIN').toUpperCase() as 'PLAIN',
      username: String(config['sasl.username'] ?? ''),
      password: String(config['sasl.password'] ?? ''),
    };
  const ignored = Object.keys(config).filter((k) => !OWN.has(k) && !known.has(k));
  return { options, ignored };
}
