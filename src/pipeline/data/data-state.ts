// What the data routes keep for one incarnation of the pipeline process: its id (completion tokens
// name it), the per-endpoint statistics /stats serves, and how far steps have applied ingress.
import { randomUUID } from 'node:crypto';
import type { DataEngine, StepResult } from '../../engine/types.js';
import { OpenStreams } from '../../http/open-streams.js';

export interface InputEndpoint {
  endpoint_name: string;
  table: string;
  total_records: number;
  total_bytes: number;
  num_parse_errors: number;
  num_transport_errors: number;
}
export interface OutputEndpoint {
  endpoint_name: string;
  view: string;
  transmitted_records: number;
  transmitted_bytes: number;
  dropped_chunks: number;
  num_encode_errors: number;
  num_transport_errors: number;
}

export class DataState {
  readonly incarnation = randomUUID();
  readonly inputs = new Map<string, InputEndpoint>();
  readonly outputs = new Set<OutputEndpoint>();
  lastStep = 0;
  appliedSeq = 0;
  /**
   * The last step every output connector has sent (Infinity without any): set by the connectors.
   * A completion token waits for it, as the established server waits for its output endpoints.
   */
  outputsSentThrough: () => number = () => Infinity;
  /** Steps that applied ingests and whose outputs are not all sent yet: (step, appliedSeq), in order. */
  private readonly unsent: { step: number; seq: number }[] = [];
  /** Every ingest up to this sequence number was applied and its outputs sent. */
  private sent = 0;
  processedRecords = 0;
  /** POST /checkpoint's sequence numbers: the last requested, succeeded and failed. */
  readonly checkpoints: { requested: number; success?: number; failure?: { sequence_number: number; error: string } } =
    {
      requested: 0,
    };
  private attached: DataEngine | undefined;
  private readonly stepWaiters = new Set<() => void>();
  private readonly streams = new Set<(result: StepResult) => void | Promise<void>>();
  /**
   * How to end each open egress stream when the process shuts down. An open stream is a request
   * still in flight, which the HTTP server's close would wait for until its reader left: a stop
   * with a listener open took the runner's whole grace period and then a SIGKILL.
   */
  readonly openStreams = new OpenStreams();

  /** Subscribes to the engine's steps once it exists (the routes call this on each use). */
  attach(engine: DataEngine): void {
    if (this.attached === engine) return;
    this.attached = engine;
    // The one listener of the engine: egress streams get each step first, and only then do its
    // completion tokens read complete (a token's promise: every output was handed its changes).
    engine.onStep(async (result: StepResult) => {
      for (const stream of [...this.streams]) await stream(result);
      this.lastStep = result.step;
      if (result.appliedSeq > this.appliedSeq) this.unsent.push({ step: result.step, seq: result.appliedSeq });
      this.appliedSeq = Math.max(this.appliedSeq, result.appliedSeq);
      this.sentSeq(); // keeps `unsent` as short as the outputs' queues
      this.processedRecords += result.inputRecords;
      for (const wake of [...this.stepWaiters]) wake();
    });
  }

  /** Every ingest up to the returned sequence number was applied and its outputs sent (tokens read it). */
  sentSeq(): number {
    const through = this.outputsSentThrough();
    while (this.unsent.length > 0 && (this.unsent[0]?.step ?? Infinity) <= through)
      this.sent = this.unsent.shift()?.seq ?? this.sent;
    return this.sent;
  }

  /** An egress stream's listener of steps; returns its unsubscribe. */
  subscribe(stream: (result: StepResult) => void | Promise<void>): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  input(table: string): InputEndpoint {
    let e = this.inputs.get(table);
    if (!e) {
      e = {
        endpoint_name: `${table}.api-ingress`,
        table,
        total_records: 0,
        total_bytes: 0,
        num_parse_errors: 0,
        num_transport_errors: 0,
      };
      this.inputs.set(table, e);
    }
    return e;
  }

  /** Resolves after the next step (or `ms` at most): lets a paused ingress or a test wait without spinning. */
  nextStep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stepWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stepWaiters.add(done);
    });
  }
}

/** A completion token: this incarnation and the ingest's sequence number. Opaque to clients. */
export function makeToken(incarnation: string, seq: number): string {
  return Buffer.from(JSON.stringify({ i: incarnation, s: seq })).toString('base64url');
}

export function readToken(token: string): { incarnation: string; seq: number } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof v !== 'object' || v === null) return undefined;
    const { i, s } = v as { i?: unknown; s?: unknown };
    return typeof i === 'string' && typeof s === 'number' && Number.isSafeInteger(s)
      ? { incarnation: i, seq: s }
      : undefined;
  } catch {
    return undefined;
  }
}
