// The parts of GET /stats the ecosystem's clients read (their stats module: global_metrics with
// state, incarnation_uuid, start_time in Unix seconds, transaction_status; inputs[] and outputs[]
// with endpoint_name, config, metrics, paused, barrier).
import type { PipelineController } from '../controller.js';
import type { DataState } from './data-state.js';

export function dataStats(ctl: PipelineController, state: DataState) {
  const engine = ctl.dataEngine;
  if (engine) state.attach(engine);
  const buffered = engine?.bufferedRecords ?? 0;
  const inputs = [...state.inputs.values()];
  const totalInput = inputs.reduce((a, e) => a + e.total_records, 0);
  const cpu = process.cpuUsage();
  const startTime = Math.floor(ctl.startedAt / 1000);
  const global = {
    state: ctl.status,
    bootstrap_in_progress: false,
    incarnation_uuid: state.incarnation,
    start_time: startTime,
    initial_start_time: startTime,
    transaction_status: 'NoTransaction',
    transaction_id: 0,
    rss_bytes: process.memoryUsage.rss(),
    cpu_msecs: Math.round((cpu.user + cpu.system) / 1000),
    buffered_input_records: buffered,
    buffered_input_bytes: 0,
    total_input_records: totalInput,
    total_input_bytes: inputs.reduce((a, e) => a + e.total_bytes, 0),
    output_stall_msecs: 0,
    total_processed_records: state.processedRecords,
    total_completed_records: state.processedRecords,
    total_initiated_steps: state.lastStep,
    total_completed_steps: state.lastStep,
    pipeline_complete: false,
  };
  return {
    global,
    inputs: inputs.map((e) => ({
      endpoint_name: e.endpoint_name,
      config: { stream: e.table },
      metrics: {
        total_bytes: e.total_bytes,
        total_records: e.total_records,
        buffered_records: 0,
        buffered_bytes: 0,
        num_transport_errors: e.num_transport_errors,
        num_parse_errors: e.num_parse_errors,
        end_of_input: false,
      },
      fatal_error: null,
      paused: ctl.status === 'Paused',
      barrier: false,
    })),
    outputs: [...state.outputs].map((e) => ({
      endpoint_name: e.endpoint_name,
      config: { stream: e.view },
      metrics: {
        transmitted_records: e.transmitted_records,
        transmitted_bytes: e.transmitted_bytes,
        queued_records: 0,
        queued_batches: 0,
        buffered_records: 0,
        buffered_batches: 0,
        num_encode_errors: e.num_encode_errors,
        num_transport_errors: e.num_transport_errors,
        dropped_chunks: e.dropped_chunks,
        total_processed_input_records: state.processedRecords,
        total_processed_steps: state.lastStep,
      },
      fatal_error: null,
      paused: false,
    })),
  };
}
