import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { splitLines } from '../../../http/log-lines.js';
import { type Kube, statusOf } from './kube.js';
import { PIPELINE_CONTAINER } from './pod-loss.js';

// GET /v0/pipelines/{name}/logs under the Kubernetes runner (issue 29): the pipeline container's log
// through the API server (`pods/log`, what `kubectl logs -f` reads), as the same follow stream the
// local runner gives: the backlog, then each new line until the container ends or the caller leaves.

/** Lines of the backlog sent before following: `kubectl logs --tail`, so a long-lived pod's whole log is not replayed. */
export const LOG_TAIL_LINES = 10_000;

/**
 * The log of `pod`'s pipeline container, followed (or, `follow` false, its backlog alone); undefined
 * when the API server has no such pod or container log yet (404, or 400 while the container waits
 * to start).
 */
export async function followPodLog(
  kube: Kube,
  namespace: string,
  pod: string,
  signal: AbortSignal,
  follow = true,
): Promise<AsyncIterable<string> | undefined> {
  const out = new PassThrough();
  let request: AbortController;
  try {
    request = await kube.call('get', 'pods/log', () =>
      new k8s.Log(kube.config).log(namespace, pod, PIPELINE_CONTAINER, out, {
        follow,
        tailLines: LOG_TAIL_LINES,
      }),
    );
  } catch (error) {
    const status = statusOf(error);
    if (status === 404 || status === 400) return undefined;
    throw error;
  }
  const stop = () => {
    request.abort();
    out.end();
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return splitLines(out);
}
