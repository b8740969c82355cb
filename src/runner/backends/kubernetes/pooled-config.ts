import * as k8s from '@kubernetes/client-node';

type RequestContext = Parameters<k8s.KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = ReturnType<RequestContext['getDispatcher']>;

/** How long one set of pooled connections serves before a new one picks up rotated client certificates. */
const DISPATCHER_REFRESH_MS = 10 * 60_000;

/**
 * A KubeConfig whose API requests share one connection pool (the runner's, and the test cluster's
 * node agent's: in a 200-pod wave the agent spent a third of its CPU on TLS set-up). The client's own
 * applySecurityAuthentication builds a new undici Agent for every request, so each request opened
 * a new TLS connection to the API server: a handshake per request on both sides, hundreds in a
 * 200-pipeline wave. Headers (tokens, exec credentials) are still applied per request; only the
 * connection pool is kept, renewed every ten minutes.
 */
export class PooledKubeConfig extends k8s.KubeConfig {
  private pool?: { dispatcher: Dispatcher; since: number };

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const now = Date.now();
    if (!this.pool || now - this.pool.since > DISPATCHER_REFRESH_MS) {
      const dispatcher = context.getDispatcher();
      this.pool = dispatcher ? { dispatcher, since: now } : undefined;
    }
    if (this.pool?.dispatcher) context.setDispatcher(this.pool.dispatcher);
  }
}
