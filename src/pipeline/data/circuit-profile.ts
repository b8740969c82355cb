// GET /circuit_profile: the views' circuits as JSON (src/engine/operators/profile.ts): each native
// view's operators depth first, with what the stateful ones hold and, with runtime_config.cpu_profiler
// on (its default), the steps, time and rows of each; a view the PGlite path keeps, with its rule
// and why it is not native. The established server answers a zip of its own profile formats; a
// client of svc reads this JSON (docs/data-path.md).
import type { FastifyInstance } from 'fastify';
import type { CircuitProfileBody } from '../../model/circuit-profile.js';
import type { PipelineController } from '../controller.js';
import { engineOf } from './common.js';
import type { DataState } from './data-state.js';

export function circuitProfileRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.get('/circuit_profile', async (): Promise<CircuitProfileBody> => {
    const views = await engineOf(ctl, state).circuitProfile();
    return { timed: ctl.settings.cpuProfiler, views };
  });
}
