// The connectors of a running pipeline: built from program_info when the engine has started, fed
// into the engine's ingest (inputs) and fed each step's view deltas (outputs), stopped before the
// engine closes. It also answers what /stats, /status and the per-connector routes ask: each
// endpoint's statistics, their error sum, and whether the pipeline's input is complete.
import type { BodyIngest } from '../engine/host/hosted.js';
import type { DataEngine, StepResult } from '../engine/types.js';
import type { Logger } from '../logging/logger.js';
import type { JsonValue } from '../model/json.js';
import type { ProgramInfo } from '../model/program.js';
import { checkConnectors, type Direction } from './declarations.js';
import { InputEndpoint } from './input-endpoint.js';
import { OutputEndpoint } from './output-endpoint.js';
import { endpointNameOf } from './schema.js';
import { inputErrors, outputErrors } from './stats.js';
import { inputRun, outputTransport } from './transports/index.js';

export interface ConnectorHost {
  /** The pipeline's engine: text is decoded on its thread (BodyIngest), rows made here go in as they are. */
  engine: DataEngine & BodyIngest;
  info: ProgramInfo;
  /** Subscribes to step results (the path HTTP egress uses); returns the unsubscribe. */
  subscribe(listener: (result: StepResult) => void): () => void;
  pipelinePaused(): boolean;
  /** runtime_config.max_parallel_connector_init */
  parallel: number;
  /** Input positions of the checkpoint the pipeline resumed from, by endpoint name. */
  resume?: Record<string, JsonValue> | undefined;
}

/** Runs `work` over `items`, at most `n` at a time. */
async function inBatches<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(work));
}

export class ConnectorRuntime {
  readonly inputs: InputEndpoint[] = [];
  readonly outputs: OutputEndpoint[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private stopped = false;
  /**
   * The resumed positions of this program's input connectors: a checkpoint taken before an
   * endpoint exists (connectors past max_parallel_connector_init start later) keeps its position.
   */
  private resumed: Record<string, JsonValue> = {};
  /** Connector ingests and a checkpoint's capture of their positions take turns (see withPositions). */
  private gate: Promise<unknown> = Promise.resolve();
  readonly exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = this.gate.then(work);
    this.gate = run.catch(() => undefined);
    return run;
  };

  constructor(private readonly log: Logger) {}

  private declared<D extends Direction>(declarations: Record<string, unknown>, direction: D) {
    return Object.entries(declarations).flatMap(([relation, value]) => {
      const checked = checkConnectors(value, direction);
      if (checked.ok) return checked.connectors.map((connector) => ({ relation, connector }));
      // The compiler checked them; a program compiled by an older version may not pass.
      this.log.error({ relation, errors: checked.errors }, 'connectors of %s are not valid: not started', relation);
      return [];
    });
  }

  /**
   * Output endpoints subscribe to steps before this returns its promise (no await before): the
   * pipeline's first step, which may follow at once, reaches them. Inputs start after.
   */
  async start(host: ConnectorHost): Promise<void> {
    const { engine, info } = host;
    const log = this.log;
    const outs = this.declared(info.output_connectors, 'output');
    for (const { relation, connector } of outs) {
      const view = engine.resolve(relation, 'view');
      if (!view) continue;
      const transport = outputTransport(connector, endpointNameOf(view.name, connector));
      transport.catch(() => undefined); // its failure is counted by the endpoint's send loop
      const endpoint = new OutputEndpoint({ view, connector, log }, transport);
      this.outputs.push(endpoint);
      this.unsubscribe.push(host.subscribe(endpoint.onStep), engine.watch(view.name).release);
      endpoint.start();
    }
    const ins = this.declared(info.input_connectors, 'input');
    for (const { relation, connector } of ins) {
      const name = endpointNameOf(engine.resolve(relation, 'table')?.name ?? relation, connector);
      const position = host.resume?.[name];
      if (position !== undefined) this.resumed[name] = position;
    }
    await inBatches(ins, host.parallel, async ({ relation, connector }) => {
      const table = engine.resolve(relation, 'table');
      if (!table || this.stopped) return;
      const endpoint = new InputEndpoint({
        engine,
        table,
        connector,
        log,
        pipelinePaused: host.pipelinePaused,
        exclusive: this.exclusive,
      });
      this.inputs.push(endpoint);
      endpoint.position = host.resume?.[endpoint.name];
      endpoint.start(await inputRun(connector, endpoint.name, endpoint.position));
    });
    if (ins.length + outs.length > 0)
      log.info({ inputs: this.inputs.length, outputs: this.outputs.length }, 'connectors started');
  }

  /**
   * A checkpoint's dump with the inputs' positions that match it exactly: no connector ingest runs
   * while the positions are read and the dump is queued in the engine (its turns are serial), so
   * the dump holds exactly what the positions cover. A resume then neither loses nor repeats it.
   */
  async withPositions(dump: () => Promise<void>): Promise<{ connectors: Record<string, JsonValue> }> {
    const { positions, dumped } = await this.exclusive(() => {
      const positions: Record<string, JsonValue> = { ...this.resumed };
      for (const e of this.inputs) if (e.position !== undefined) positions[e.name] = e.position;
      return Promise.resolve({ positions, dumped: dump() });
    });
    await dumped;
    return { connectors: positions };
  }

  /** Parse, transport and encode errors of every endpoint: the record's connectors.num_errors. */
  numErrors(): number {
    return (
      this.inputs.reduce((n, e) => n + inputErrors(e.metrics), 0) +
      this.outputs.reduce((n, e) => n + outputErrors(e.metrics), 0)
    );
  }

  /**
   * Every input connector reached its end, a step applied all it ingested (`appliedSeq`), and
   * every output sent what it was given. False without input connectors: HTTP input never ends.
   */
  complete(appliedSeq: number): boolean {
    return (
      this.inputs.length > 0 &&
      this.inputs.every((e) => e.metrics.end_of_input && e.lastSeq <= appliedSeq) &&
      this.outputs.every((e) => e.flushed)
    );
  }

  /** The last step every output connector has sent (Infinity without any): completion tokens wait for it. */
  sentThrough(): number {
    return Math.min(Infinity, ...this.outputs.map((e) => e.sentThrough));
  }

  find(relation: string, name: string): InputEndpoint | OutputEndpoint | undefined {
    const lower = relation.toLowerCase();
    return [...this.inputs, ...this.outputs].find(
      (e) => e.relation.toLowerCase() === lower && e.connectorName === name,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    await Promise.all([...this.inputs, ...this.outputs].map((e) => e.stop()));
  }
}
