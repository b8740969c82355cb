import { performance } from 'node:perf_hooks';
import { forPipeline, type Logger } from '../logging/logger.js';
import type { CompileJob } from '../store/compiler/claim.js';
import type { StageResult } from '../store/compiler/store-result.js';
import { runBuild, type BuildOptions } from './build/stage.js';
import { compileSql } from './sql/compile.js';
import type { Scratch } from './sql/scratch.js';

// One stage of one pipeline: compute the result, log start and outcome. Never throws: a failure of
// the machine becomes a SystemError result (seed 2.4, system_error).

const systemError = (error: unknown): StageResult => ({
  status: 'SystemError',
  program_error: { system_error: error instanceof Error ? error.message : String(error) },
});

async function sqlStage(scratch: Scratch, job: CompileJob): Promise<StageResult> {
  const result = await compileSql(scratch, job.program_code);
  if (result.ok)
    return {
      status: 'SqlCompiled',
      program_info: result.info,
      program_error: { sql_compilation: { exit_code: 0, messages: result.warnings } },
    };
  return {
    status: 'SqlError',
    program_info: null,
    program_error: { sql_compilation: { exit_code: 1, messages: result.messages } },
  };
}

export type Stage = 'sql' | 'build';

export interface StageDeps {
  scratch: Scratch;
  build: BuildOptions;
  log: Logger;
}

const NAMES: Record<Stage, string> = { sql: 'SQL compilation', build: 'Build' };

export async function runStage(stage: Stage, job: CompileJob, deps: StageDeps): Promise<StageResult> {
  const log = forPipeline(deps.log, job);
  const name = NAMES[stage];
  log.info({ program_version: job.program_version }, `${name} started`);
  const started = performance.now();
  let result: StageResult;
  try {
    result = stage === 'sql' ? await sqlStage(deps.scratch, job) : await runBuild(job, deps.build);
  } catch (error) {
    result = systemError(error);
  }
  const duration_ms = Math.round(performance.now() - started);
  const level = result.status === 'SystemError' ? 'error' : 'info';
  log[level](
    { status: result.status, duration_ms, program_version: job.program_version },
    `${name} finished: ${result.status} in ${duration_ms} ms`,
  );
  return result;
}
