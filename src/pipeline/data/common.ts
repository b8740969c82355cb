import { z } from 'zod';
import type { PipelineController } from '../controller.js';
import type { ThreadEngine } from '../../engine/host/thread-engine.js';
import { badRequest, SvcError } from '../../model/errors.js';
import type { DataState } from './data-state.js';

export function parseParams<T>(schema: z.ZodType<T>, value: unknown, code: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'query';
  throw badRequest(code, `${field}: ${issue?.message ?? 'invalid'}`, { field });
}

/** The engine, once the pipeline has started; 503 before (the client may retry). */
export function engineOf(ctl: PipelineController, state: DataState): ThreadEngine {
  const engine = ctl.dataEngine;
  if (!engine)
    throw new SvcError(503, 'PipelineNotRunning', `the pipeline is ${ctl.status}: its data path is not open yet`, {
      status: ctl.status,
    });
  state.attach(engine);
  return engine;
}
