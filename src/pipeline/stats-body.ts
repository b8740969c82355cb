// GET /stats: the body the ecosystem's clients read (their stats module and wait_for_idle), also the
// source of the pipeline's Prometheus metrics (metrics.ts), so that both always say the same.
// `total_input_records` counts every record taken in, through HTTP ingress and through connectors:
// wait_for_idle compares it with `total_processed_records`, and a pipeline fed only by connectors
// would otherwise look idle before it has processed anything, or never (when processed exceeds it).
import type { ConnectorRuntime } from '../connectors/runtime.js';
import type { RelationInfo } from '../engine/types.js';
import type { PipelineController } from './controller.js';
import type { DataState } from './data/data-state.js';
import { dataStats } from './data/stats.js';

export type StatsBody = Awaited<ReturnType<typeof statsBody>>;

/**
 * Each view's way of being kept (`native`, or the PGlite rule and why not native), or each table's
 * (`native`: its rows in the native path, or `pglite` and why not).
 */
function maintenanceOf(relations: readonly RelationInfo[], kind: 'view' | 'table') {
  const views = relations.filter((r) => r.kind === kind);
  return Object.fromEntries(
    views.map((v) => [v.name, { maintenance: v.maintenance ?? null, reason: v.maintenanceReason ?? null }]),
  );
}

export async function statsBody(ctl: PipelineController, data: DataState, connectors: ConnectorRuntime) {
  const tables = await ctl.rowCounts();
  const tableMaintenance = maintenanceOf(ctl.dataEngine?.relations() ?? [], 'table');
  const now = ctl.now();
  const { global, inputs, outputs } = dataStats(ctl, data);
  const connectorInputs = connectors.inputs.map((e) => e.stats());
  const connectorRecords = connectorInputs.reduce((a, e) => a + e.metrics.total_records, 0);
  const connectorBytes = connectorInputs.reduce((a, e) => a + e.metrics.total_bytes, 0);
  const checkpoints = ctl.store.summaries();
  const steps = ctl.stepTiming;
  return {
    global_metrics: {
      ...global,
      total_input_records: global.total_input_records + connectorRecords,
      total_input_bytes: global.total_input_bytes + connectorBytes,
      runtime_status: ctl.status,
      runtime_desired_status: ctl.desired,
      uptime_msecs: Date.now() - ctl.startedAt,
      workers: ctl.settings.workers,
      now_ms: now ?? null,
      program_checksum: ctl.programChecksum ?? null,
      pipeline_complete: connectors.complete(data.appliedSeq),
      /** Bytes of the pipeline's storage in use: its kept checkpoints (the established member's name). */
      storage_bytes: ctl.store.bytes(),
      /** Milliseconds spent in steps, all of them and the last one: Δ of the first ÷ Δ steps is the step time. */
      total_step_msecs: steps.totalMs,
      last_step_msecs: steps.lastMs,
    },
    /** Suspend state as the established server reports it: null while no suspend has failed. */
    suspend_error: null,
    /** Checkpoints are written in the engine's turn: none is ever waiting when /stats answers. */
    checkpoint_activity: { status: 'idle' as const },
    checkpoint_status: {
      success: data.checkpoints.success ?? null,
      failure: data.checkpoints.failure ?? null,
      last_checkpoint: checkpoints.at(-1) ?? null,
      checkpoints_in_storage: checkpoints.length,
    },
    tables: Object.fromEntries(
      Object.entries(tables).map(([name, rows]) => [name, { rows, ...tableMaintenance[name] }]),
    ),
    /** Per view: `native`, or the PGlite rule that keeps it and why it is not native (docs/engine.md). */
    views: maintenanceOf(ctl.dataEngine?.relations() ?? [], 'view'),
    connector_stats: { num_errors: connectors.numErrors() },
    inputs: [...inputs, ...connectorInputs],
    outputs: [...outputs, ...connectors.outputs.map((e) => e.stats())],
  };
}
