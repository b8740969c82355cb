// The pipeline process's per-connector routes: POST tables/{t}/connectors/{c}/start|pause and
// GET …/stats, and the same under views/{v}/ for output connectors. A paused input connector takes
// no input (its transport waits); a paused output connector queues its view's changes.
// GET tables/{t}/connectors/{c}/completion_token: a token covering what the connector has ingested
// so far, answered by /completion_status like an ingress request's.
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../model/errors.js';
import { InputEndpoint } from './input-endpoint.js';
import type { ConnectorRuntime } from './runtime.js';

type Params = { Params: { relation: string; connector: string } };

/** `token`: the completion token of an ingest's sequence number (src/pipeline/data/data-state.ts). */
export function connectorRoutes(
  app: FastifyInstance,
  connectors: ConnectorRuntime,
  token: (seq: number) => string,
): void {
  for (const kind of ['tables', 'views'] as const) {
    const [direction, relationKind] = kind === 'tables' ? ['input', 'table'] : ['output', 'view'];
    const find = (p: Params['Params']) => {
      const e = connectors.find(p.relation, p.connector);
      if (!e || e instanceof InputEndpoint !== (kind === 'tables'))
        throw new SvcError(
          404,
          'UnknownConnector',
          `no ${direction} connector ${p.connector} of ${relationKind} ${p.relation}`,
          { [relationKind]: p.relation, connector: p.connector },
        );
      return e;
    };
    const base = `/${kind}/:relation/connectors/:connector`;
    for (const action of ['start', 'pause'] as const)
      app.post<Params>(`${base}/${action}`, async (request) => {
        find(request.params).paused = action === 'pause';
        return {};
      });
    app.get<Params>(`${base}/stats`, async (request) => find(request.params).stats());
    if (kind === 'tables')
      app.get<Params>(`${base}/completion_token`, async (request) => {
        const e = find(request.params);
        return { token: token(e instanceof InputEndpoint ? await e.coveredSeq() : 0) };
      });
  }
}
