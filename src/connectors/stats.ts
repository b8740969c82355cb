// Per-endpoint statistics of the connectors, in the shape the ecosystem's clients read from /stats
// (inputs[] and outputs[]: endpoint_name, config, metrics, fatal_error, paused).

export interface InputMetrics {
  total_records: number;
  total_bytes: number;
  num_parse_errors: number;
  num_transport_errors: number;
  end_of_input: boolean;
}
export interface OutputMetrics {
  transmitted_records: number;
  transmitted_bytes: number;
  queued_records: number;
  num_encode_errors: number;
  num_transport_errors: number;
  total_processed_steps: number;
}

export const inputMetrics = (): InputMetrics => ({
  total_records: 0,
  total_bytes: 0,
  num_parse_errors: 0,
  num_transport_errors: 0,
  end_of_input: false,
});
export const outputMetrics = (): OutputMetrics => ({
  transmitted_records: 0,
  transmitted_bytes: 0,
  queued_records: 0,
  num_encode_errors: 0,
  num_transport_errors: 0,
  total_processed_steps: 0,
});

/** One endpoint as /stats lists it. */
export interface EndpointStats<M> {
  endpoint_name: string;
  config: { stream: string; transport: unknown; format: unknown };
  metrics: M;
  /** The last transport error (redacted), or null: the endpoint goes on retrying. */
  fatal_error: string | null;
  paused: boolean;
  barrier: false;
}

export const inputErrors = (m: InputMetrics): number => m.num_parse_errors + m.num_transport_errors;
export const outputErrors = (m: OutputMetrics): number => m.num_encode_errors + m.num_transport_errors;
