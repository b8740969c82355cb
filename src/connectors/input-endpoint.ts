// One input connector of a table: its transport brings bytes (or rows), the endpoint hands the text
// with its format to the engine, which decodes it on its thread with the decoders HTTP ingress uses
// (src/formats/engine-codec.ts) and ingests it, the same path as POST /ingress. A record that does
// not parse or does not fit the table is counted and skipped (never half-applied: the engine checks each record whole); a transport that fails is
// counted and started again after a back-off, until the pipeline stops.
import type { BodyIngest } from '../engine/host/hosted.js';
import type { Change, DataEngine, IngestResult, RelationInfo } from '../engine/types.js';
import type { BodyFormat } from '../model/data-queries.js';
import type { Logger } from '../logging/logger.js';
import type { JsonValue } from '../model/json.js';
import { backoff, sleep } from './backoff.js';
import { redactConfig, redactText, secretsOf } from '../model/redact.js';
import { connectorNameOf, DEFAULT_FORMAT, endpointNameOf, type Format, type InputConnector } from './schema.js';
import { type EndpointStats, inputMetrics, type InputMetrics } from './stats.js';
import { withoutBom } from '../formats/bom.js';

export interface InputSink {
  readonly signal: AbortSignal;
  readonly table: RelationInfo;
  /**
   * Text in the endpoint's format; `header`: it starts a file or message (CSV headers are skipped).
   * `position`: where the input resumes after this text (a checkpoint records it).
   */
  push(text: string, header?: boolean, position?: JsonValue): Promise<void>;
  /** Rows already made (datagen, postgres_input): checked and ingested; `position` as for push. */
  pushChanges(changes: Change[], bytes: number, position?: JsonValue): Promise<void>;
  /** A failed attempt: counted and logged (redacted); the transport retries. */
  transportError(error: unknown): void;
  endOfInput(): void;
  /** Resolves once input may be taken: neither the endpoint nor the pipeline is paused. */
  ready(): Promise<void>;
}

/** A transport's work: resolves at the end of its input, rejects on a failure (then it runs again). */
export type InputRun = (sink: InputSink) => Promise<void>;

export interface InputOptions {
  engine: DataEngine & BodyIngest;
  table: RelationInfo;
  connector: InputConnector;
  log: Logger;
  pipelinePaused: () => boolean;
  /** Runs an ingest so that no checkpoint's dump is queued meanwhile (runtime.ts). */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
}

const PAUSE_POLL_MS = 100;

const dropHeader = (text: string): string => {
  const nl = text.indexOf('\n');
  return nl < 0 ? '' : text.slice(nl + 1);
};

export class InputEndpoint {
  readonly metrics: InputMetrics = inputMetrics();
  readonly name: string;
  readonly relation: string;
  readonly connectorName: string;
  /** The engine's sequence number of this endpoint's last ingest (completion waits for a step past it). */
  lastSeq = 0;
  /** Where the input resumes after what the engine has taken (undefined: the transport keeps none). */
  position: JsonValue | undefined;
  paused: boolean;
  private lastError: string | null = null;
  private readonly abort = new AbortController();
  private readonly format: Format;
  /** The endpoint's format as the engine's decoder reads it (fixed for the endpoint's life). */
  private readonly bodyFormat: BodyFormat;
  private readonly secrets: string[];
  private running: Promise<void> | undefined;
  /** The ingest under way, if any: a completion token asked for meanwhile covers it too. */
  private ingesting: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: InputOptions) {
    this.relation = opts.table.name;
    this.connectorName = connectorNameOf(opts.connector);
    this.name = endpointNameOf(this.relation, opts.connector);
    this.paused = opts.connector.paused;
    this.format = opts.connector.format ?? DEFAULT_FORMAT;
    const f = this.format;
    this.bodyFormat =
      f.name === 'csv'
        ? { format: 'csv', update_format: 'insert_delete', array: false, json_flavor: 'default' }
        : { format: 'json', update_format: f.config.update_format, array: f.config.array, json_flavor: 'default' };
    this.secrets = secretsOf(opts.connector.transport.config);
    this.sink = this.makeSink();
  }

  private readonly sink: InputSink;

  private makeSink(): InputSink {
    return {
      signal: this.abort.signal,
      table: this.opts.table,
      push: async (text, header = false, position) => {
        this.metrics.total_bytes += Buffer.byteLength(text);
        // `header`: the text starts a file or message, the only place a byte order mark is one (a
        // U+FEFF at the start of a later chunk is a character of the data).
        const start = header ? withoutBom(text) : text;
        const body = header && this.format.name === 'csv' && this.format.config.headers ? dropHeader(start) : start;
        await this.ingest(async () => {
          const { result, decoded } = await this.opts.engine.ingestBody(this.relation, body, this.bodyFormat).result;
          this.metrics.num_parse_errors += decoded.errors.length;
          for (const e of decoded.errors.slice(0, 3))
            this.opts.log.warn({ endpoint: this.name }, 'parse error: %s', e.message);
          // Nothing decoded: as no ingest for completion (the engine numbered it all the same).
          return decoded.indexes.length > 0 ? result : undefined;
        }, position);
      },
      pushChanges: async (changes, bytes, position) => {
        this.metrics.total_bytes += bytes;
        await this.ingest(
          async () => (changes.length === 0 ? undefined : this.opts.engine.ingest(this.relation, changes)),
          position,
        );
      },
      transportError: (error) => {
        this.metrics.num_transport_errors++;
        this.lastError = redactText((error as Error).message ?? String(error), this.secrets);
        this.opts.log.warn({ endpoint: this.name }, 'input transport error (retrying): %s', this.lastError);
      },
      endOfInput: () => {
        this.metrics.end_of_input = true;
      },
      ready: async () => {
        while ((this.paused || this.opts.pipelinePaused()) && !this.abort.signal.aborted)
          await sleep(PAUSE_POLL_MS, this.abort.signal);
      },
    };
  }

  /** The sequence number a completion token asked for now covers: after the ingest under way. */
  async coveredSeq(): Promise<number> {
    await this.ingesting.catch(() => undefined);
    return this.lastSeq;
  }

  /** Runs one ingest (`send`: undefined when nothing went in) in the checkpoints' turn, then counts it. */
  private async ingest(send: () => Promise<IngestResult | undefined>, position?: JsonValue): Promise<void> {
    const taking = this.opts.exclusive(async () => {
      const r = await send();
      if (position !== undefined) this.position = position;
      return r;
    });
    this.ingesting = taking;
    const result = await taking;
    if (!result) return;
    this.lastError = null; // the transport delivers again
    this.lastSeq = result.seq;
    this.metrics.total_records += result.accepted;
    this.metrics.num_parse_errors += result.errors.length;
    for (const e of result.errors.slice(0, 3))
      this.opts.log.warn({ endpoint: this.name }, 'record does not fit the table: %s', e.message);
  }

  /** Runs the transport until its input ends or the pipeline stops; failures retry with back-off. */
  start(run: InputRun): void {
    const wait = backoff();
    const loop = async () => {
      while (!this.abort.signal.aborted && !this.metrics.end_of_input) {
        try {
          await this.sink.ready();
          await run(this.sink);
          wait.reset();
        } catch (error) {
          if (this.abort.signal.aborted) return;
          this.sink.transportError(error);
          await sleep(wait.next(), this.abort.signal);
        }
      }
    };
    this.running = loop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  stats(): EndpointStats<InputMetrics> {
    const { transport, format } = this.opts.connector;
    return {
      endpoint_name: this.name,
      config: { stream: this.opts.table.name, transport: redactConfig(transport), format: format ?? null },
      metrics: { ...this.metrics },
      fatal_error: this.lastError,
      paused: this.paused || this.opts.pipelinePaused(),
      barrier: false,
    };
  }
}
