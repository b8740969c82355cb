// The pipeline process's per-connector routes: POST tables/{t}/connectors/{c}/start|pause and
// GET …/stats, and the same under views/{v}/ for output connectors. A paused input connector takes
// no input (its transport waits); a paused output connector queues its view's changes.
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../model/errors.js';
import { InputEndpoint } from './input-endpoint.js';
import type { ConnectorRuntime } from './runtime.js';

type Params = { Params: { relation: string; connector: string } };

export function connectorRoutes(app: FastifyInstance, connectors: ConnectorRuntime): void {
  for (const kind of ['tables', 'views'] as const) {
    const find = (p: Params['Params']) => {
      const e = connectors.find(p.relation, p.connector);
      if (!e || e instanceof InputEndpoint !== (kind === 'tables'))
        throw new SvcError(404, 'UnknownConnector', `no connector ${p.connector} of ${p.relation}`, {
          [kind === 'tables' ? 'table' : 'view']: p.relation,
          connector: p.connector,
        });
      return e;
    };
    const base = `/${kind}/:relation/connectors/:connector`;
    for (const action of ['start', 'pause'] as const)
      app.post<Params>(`${base}/${action}`, async (request) => {
        find(request.params).paused = action === 'pause';
        return {};
      });
    app.get<Params>(`${base}/stats`, async (request) => find(request.params).stats());
  }
}
