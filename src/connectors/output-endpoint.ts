// One output connector of a view: each step's changes of the view (the same step results HTTP egress
// streams) are queued and sent by the transport in order. A send that fails is counted, and the
// same batch is sent again after a back-off until it goes through (at least once: a batch may reach
// the system twice if a failure hid a success); steps never wait for a slow or absent system.
import { jsonColumnNames } from '../engine/json-columns.js';
import type { Change, RelationInfo, StepResult } from '../engine/types.js';
import type { Logger } from '../logging/logger.js';
import { backoff, sleep } from './backoff.js';
import { encodeRecords } from './output-encode.js';
import { redactConfig, redactText, secretsOf } from '../model/redact.js';
import { connectorNameOf, DEFAULT_FORMAT, endpointNameOf, type Format, type OutputConnector } from './schema.js';
import { type EndpointStats, outputMetrics, type OutputMetrics } from './stats.js';

export interface OutputBatch {
  step: number;
  changes: Change[];
  /** The changes encoded in the connector's format, one string a record (byte transports send these). */
  records: string[];
}

export interface OutputTransport {
  /** Sends one batch; resolves with the bytes sent, rejects on failure (then it is sent again). */
  send(batch: OutputBatch): Promise<number>;
  close(): Promise<void>;
}

export interface OutputOptions {
  view: RelationInfo;
  connector: OutputConnector;
  log: Logger;
}

export class OutputEndpoint {
  readonly metrics: OutputMetrics = outputMetrics();
  readonly name: string;
  readonly relation: string;
  readonly connectorName: string;
  paused: boolean;
  private readonly queue: OutputBatch[] = [];
  private lastError: string | null = null;
  private readonly abort = new AbortController();
  private readonly format: Format;
  private readonly secrets: string[];
  /** The relation's column names, in order (they never change while the pipeline runs). */
  private readonly columns: readonly string[];
  private readonly jsonColumns: ReadonlySet<string>;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly opts: OutputOptions,
    /** A promise: the endpoint subscribes to steps at once, while its client module loads. */
    private readonly transport: Promise<OutputTransport>,
  ) {
    this.relation = opts.view.name;
    this.connectorName = connectorNameOf(opts.connector);
    this.name = endpointNameOf(this.relation, opts.connector);
    this.paused = opts.connector.paused;
    this.format = opts.connector.format ?? DEFAULT_FORMAT;
    this.secrets = secretsOf(opts.connector.transport.config);
    this.columns = opts.view.columns.map((c) => c.name);
    this.jsonColumns = jsonColumnNames(opts.view.columns);
  }

  /** The step listener: queues the view's changes (never waits for the transport). */
  readonly onStep = (result: StepResult): void => {
    this.metrics.total_processed_steps = result.step;
    const changes = result.outputs.get(this.opts.view.name);
    if (!changes || changes.length === 0) return;
    let records: string[];
    try {
      records = encodeRecords(this.format, changes, this.columns, this.jsonColumns);
    } catch (error) {
      this.metrics.num_encode_errors += changes.length;
      this.opts.log.warn({ endpoint: this.name }, 'encode error: %s', (error as Error).message);
      return;
    }
    this.queue.push({ step: result.step, changes, records });
    this.metrics.queued_records += changes.length;
    this.wake?.();
  };

  /** Whether everything queued has been sent. */
  get flushed(): boolean {
    return this.queue.length === 0;
  }

  /** The last step whose changes were all sent: the step before the oldest queued batch's, else the last seen. */
  get sentThrough(): number {
    const oldest = this.queue[0];
    return oldest ? oldest.step - 1 : this.metrics.total_processed_steps;
  }

  start(): void {
    const wait = backoff();
    const loop = async () => {
      while (!this.abort.signal.aborted) {
        const batch = this.queue[0];
        if (!batch || this.paused) {
          // Woken by the next step's changes (or a start after a pause, seen within 200 ms).
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 200);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          continue;
        }
        try {
          const bytes = await (await this.transport).send(batch);
          this.queue.shift();
          this.metrics.queued_records -= batch.changes.length;
          this.metrics.transmitted_records += batch.changes.length;
          this.metrics.transmitted_bytes += bytes;
          this.lastError = null;
          wait.reset();
        } catch (error) {
          if (this.abort.signal.aborted) return;
          this.metrics.num_transport_errors++;
          this.lastError = redactText((error as Error).message ?? String(error), this.secrets);
          this.opts.log.warn({ endpoint: this.name }, 'output transport error (retrying): %s', this.lastError);
          await sleep(wait.next(), this.abort.signal);
        }
      }
    };
    this.running = loop();
  }

  /** Stops after the batch in flight; what is still queued is not sent. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.running;
    await this.transport.then((t) => t.close()).catch(() => undefined);
  }

  stats(): EndpointStats<OutputMetrics> {
    const { transport, format } = this.opts.connector;
    return {
      endpoint_name: this.name,
      config: { stream: this.opts.view.name, transport: redactConfig(transport), format: format ?? null },
      metrics: { ...this.metrics },
      fatal_error: this.lastError,
      paused: this.paused,
      barrier: false,
    };
  }
}
