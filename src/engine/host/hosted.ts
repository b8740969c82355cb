import type { EngineOptions } from '../options.js';
import type { ViewProfile } from '../operators/profile.js';
import type { DumpedPage, PageSizes } from '../dump.js';
import type { Restored, StateSource } from '../state.js';
import type { Change, ColumnInfo, DataEngine, DecodedBody, IngestResult, RelationInfo, Row } from '../types.js';

// What the pipeline's controller asks of an engine beyond the data API's DataEngine: the engine a
// thread hosts (src/engine/host/engine-worker.ts) is any that has these, today's ProgramEngine or
// another behind the same seam. What crosses between the threads is in the types below.

export interface HostedEngine extends DataEngine {
  /** Input tables of the program, as the catalog spells them. */
  readonly tables: string[];
  /** Whether a view reads NOW(): then a clock tick changes views without input. */
  readonly usesNow: boolean;
  /** Grows with every ingest and step (checkpointDue reads it). */
  readonly stateVersion: number;
  /** The engine's PGlite (src/engine/parking.ts): on a thread, as of the thread's last answer. */
  readonly pglite: PgliteState;
  /**
   * One sequence number per ingest call, in call order, failed ones included: the main thread
   * knows an ingest's number when it hands the ingest over (a timed-out ingress answers with it).
   */
  ingest(table: string, changes: Change[]): Promise<IngestResult>;
  /**
   * A body decoded by `codec` and ingested, in one turn (one sequence number): on the native
   * circuits' shard threads too, where it can be (ProgramEngine's). Without it, the host decodes.
   */
  ingestDecoding?(table: string, text: string, format: unknown, codec: EngineCodec): Promise<BodyIngested>;
  onIngest(listener: () => void): () => void;
  setNow(ms: number): Promise<void>;
  /** A snapshot handed to `emit` `size` rows at a time, all as of one step (ProgramEngine's). */
  snapshotPages(name: string, size: number, emit: (page: Row[]) => Promise<void>): Promise<void>;
  dump(emit: (page: DumpedPage) => Promise<void>, sizes?: PageSizes): Promise<void>;
  restore(source: StateSource, strict: boolean): Promise<Restored>;
  rowCounts(): Promise<Record<string, number>>;
  circuitProfile(): Promise<ViewProfile[]>;
}

/** The engine's counters, sent with every answer so the main thread's getters read them at once. */
export interface EngineCounters {
  buffered: number;
  version: number;
  pglite: PgliteState;
}

/** Whether the engine's PGlite is open (an all-native engine's is parked while unused), and how often it was reopened. */
export interface PgliteState {
  awake: boolean;
  wakes: number;
}

export interface Loaded {
  relations: RelationInfo[];
  /** The program's types and functions, in order: a query replica defines them before its tables. */
  definitions: string[];
  tables: string[];
  usesNow: boolean;
  counters: EngineCounters;
}

/**
 * One view's changes in a step as they cross, as JSON text (exact numbers survive it, see
 * model/exact-json): the changes, and with a codec also an egress chunk's `json_data` made from the
 * same row texts, which a JSON egress stream writes as it is.
 */
export interface WireOutput {
  view: string;
  changes: string;
  jsonData?: string;
  /** How many changes (entries, whatever their weights). */
  count: number;
}

/** A step as it crosses. */
export interface SteppedWire {
  step: number;
  appliedSeq: number;
  inputRecords: number;
  outputs: WireOutput[];
  counters: EngineCounters;
}

/**
 * An engine thread's options (EngineOptions that cross to it: no function does). `codec` is the URL
 * of the wire formats' module for the thread (an EngineCodec: src/formats/engine-codec.ts), so that
 * an ingress body is parsed once, on the engine's thread, and a step's changes are written as egress
 * text there: a function cannot cross threads, a module's address can. The engine only knows the
 * seam; the pipeline, which may import the wire formats, names the module.
 */
export type EngineWorkerData = Pick<
  EngineOptions,
  'initdbDump' | 'incremental' | 'native' | 'workers' | 'timed' | 'codec' | 'parkIdleMs' | 'spill'
>;

/** What the module named by `codec` exports. */
export interface EngineCodec {
  /** Decodes `text` in the format `options` names (the ingress's query), for a table of `columns`. */
  decodeBody(text: string, options: unknown, columns: readonly ColumnInfo[]): DecodedBody;
  /**
   * `text` as up to `parts` bodies of the same format that decode, one after the other, to its
   * records, or undefined (formats/split-body.ts): a part that does not decode cleanly means the
   * cut fell inside a record, and the whole body is decoded as one.
   */
  splitBody(text: string, options: unknown, parts: number): string[] | undefined;
  /** A view's changes as JSON text and as an egress chunk's json_data, each row serialized once. */
  changesTexts(changes: readonly Change[]): { changes: string; jsonData: string };
}

/** An ingest of a request body: the engine's answer, and what decoding made of the body (no changes). */
export interface BodyIngested {
  result: IngestResult;
  decoded: Omit<DecodedBody, 'changes'>;
}

/**
 * An engine that decodes bodies itself (ThreadEngine, on its thread): what HTTP ingress and the
 * input connectors hand their text to. `format` is the formats' BodyFormat; numbered at once.
 */
export interface BodyIngest {
  ingestBody(table: string, text: string, format: unknown): { seq: number; result: Promise<BodyIngested> };
}
