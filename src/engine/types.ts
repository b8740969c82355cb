// The agreed seam between the engine (branch `engine`, owner of src/engine/**) and the data API
// (branch `dataapi`, owner of src/formats/** and the pipeline process's data routes).
// The engine helper creates this file as src/engine/types.ts in its FIRST commit (it may add members;
// it must not change these without telling the lead in its report). Formats produce `Change[]` from
// bytes; the engine checks them against the table's types and buffers them; a step emits deltas.
import type { JsonValue } from '../model/json.js';

/** A row as JSON: column name as the catalog spells it → the value as PostgreSQL's to_json gives it. */
export type Row = Record<string, JsonValue>;
/** One change of a Z-set: weight +1 insert, −1 delete (|weight| > 1 for repeated rows). */
export interface Change {
  weight: number;
  row: Row;
}
export interface ColumnInfo {
  name: string;
  /** PostgreSQL type as format_type() spells it, e.g. `integer`, `text`, `numeric(10,2)`. */
  type: string;
  nullable: boolean;
}
export interface RelationInfo {
  name: string;
  kind: 'table' | 'view';
  /** Tables and views declared materialized can be queried ad hoc and snapshotted. */
  materialized: boolean;
  columns: ColumnInfo[];
  /**
   * Views: how the engine keeps it: `native` (the native circuits), or the PGlite path's rule
   * (`linear`, `aggregate`, `group`, `outer-join`, `recompute`). Tables: `native` (rows held by the
   * native path) or `pglite`.
   */
  maintenance?: string;
  /** Relations not kept natively: why (the native planner's refusal, or the native path switched off). */
  maintenanceReason?: string;
}
export interface IngestResult {
  /** Sequence number of this ingest (strictly increasing per incarnation): completion tokens use it. */
  seq: number;
  accepted: number;
  /** Records that did not fit the table's types (index in the request's order), nothing of them applied. */
  errors: { index: number; message: string }[];
}
/**
 * What a wire format made of one request body (src/formats). `indexes[i]` is the request position of
 * `changes[i]`, so that errors the engine reports against `changes` (types that do not fit) name
 * the request's record; `errors` are the records that did not decode.
 */
export interface DecodedBody {
  changes: Change[];
  indexes: number[];
  errors: { index: number; message: string }[];
  /** Records seen in the request, good or bad. */
  records: number;
}
export interface StepResult {
  step: number;
  /** Every ingest with seq ≤ this was applied by this step or an earlier one. */
  appliedSeq: number;
  /**
   * Per view name (catalog spelling): its delta in this step, for the views watched (see
   * DataEngine.watch); views that did not change are absent.
   */
  outputs: Map<string, Change[]>;
  /**
   * Per view of `outputs`, when the engine has its changes as text (the engine's thread does): an
   * egress chunk's `json_data` (formats/encode.ts), which a JSON egress stream writes as it is, and
   * how many changes it holds.
   */
  jsonData?: ReadonlyMap<string, { json: string; changes: number }>;
  inputRecords: number;
}
export interface QueryResult {
  columns: ColumnInfo[];
  rows: Row[];
}

export interface DataEngine {
  relations(): RelationInfo[];
  /** Resolves a name by SQL identifier rules (unquoted: case-insensitive; "Quoted": exact). */
  resolve(name: string, kind: 'table' | 'view'): RelationInfo | undefined;
  /** Buffers changes for the next step. Records that do not fit are reported; the others go in. */
  ingest(table: string, changes: Change[]): Promise<IngestResult>;
  /** Records buffered and not yet applied by a step. */
  readonly bufferedRecords: number;
  /** Runs one step now (the scheduler calls it; tests may call it directly). Serialised internally. */
  step(): Promise<StepResult>;
  /**
   * Asks for the view's changes in step results until released; `fromStep` is the first step whose
   * results carry them.
   */
  watch(view: string): { fromStep: number; release: () => void };
  /** Called after every step, in order, once its outputs are final. Returns an unsubscribe. */
  onStep(listener: (result: StepResult) => void | Promise<void>): () => void;
  /** Current contents of a materialized relation (egress `send_snapshot`). */
  snapshot(name: string): Promise<Row[]>;
  /**
   * Ad-hoc SELECT as of the last completed step. Bad SQL → SvcError 400 naming the problem; a result
   * larger than `poolBytes` → ResourcesExhausted (the query fails, the pipeline goes on).
   */
  query(sql: string, poolBytes?: number): Promise<QueryResult>;
  close(): Promise<void>;
}
