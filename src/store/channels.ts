import type { Queryable } from './database.js';

// The NOTIFY channels (the trigger of migrations/001_pipelines.sql sends on both when a pipeline
// row changes). The payload is the pipeline's id.

/** The runner listens here: a pipeline to look at now rather than at its next poll. */
export const RUNNER_CHANNEL = 'svc_runner';
/** The compiler listens here: a program may be waiting to compile. */
export const COMPILER_CHANNEL = 'svc_compiler';

/** Wakes the runner for one pipeline whose row did not change (its runtime status did). */
export async function wakeRunner(q: Queryable, pipelineId: string): Promise<void> {
  await q.query('SELECT pg_notify($1, $2)', [RUNNER_CHANNEL, pipelineId]);
}
