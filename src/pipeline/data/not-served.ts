// GET time_series, heap_profile: the established server's profiling answers that svc does not give
// (circuit_profile it does: circuit-profile.ts). No kept library samples the heap into the format
// its clients read or keeps a metrics history; DATAPATH.md asks for a 501 saying so rather than a
// 404 that reads like a wrong URL.
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../model/errors.js';

const NOT_SERVED: Record<string, string> = {
  time_series: 'no metrics history is kept; GET /stats answers the current values',
  heap_profile: 'no heap profiler is built in; the process RSS is in GET /stats (global_metrics.rss_bytes)',
};

export function notServedRoutes(app: FastifyInstance): void {
  for (const [path, why] of Object.entries(NOT_SERVED))
    app.get(`/${path}`, async () => {
      throw new SvcError(501, 'NotImplemented', `${path} is not available: ${why}`, { endpoint: path });
    });
}
