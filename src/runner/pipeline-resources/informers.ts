import type * as k8s from '@kubernetes/client-node';
import type { Logger } from '../../logging/logger.js';
import { apiMessage, type Kube } from '../backends/kubernetes/kube.js';
import { type PipelineResource, pipelineInformer } from './resource-api.js';

// The Pipeline resources the controller keeps: those of the runner's namespace and of the further
// namespaces it is given (--pipeline-resources-namespaces), one informer each, or one informer over
// every namespace (`*`). Each informer restarts by itself after an error; a look reads them all.

/** Namespaces whose Pipelines are kept: a list (the runner's first), or every namespace. */
export type WatchScope = { all: true } | { all: false; namespaces: readonly string[] };

export function watchScope(own: string, further: readonly string[]): WatchScope {
  if (further.includes('*')) return { all: true };
  return { all: false, namespaces: [...new Set([own, ...further])] };
}

export const describeScope = (scope: WatchScope): string =>
  scope.all ? 'every namespace' : scope.namespaces.join(', ');

export class PipelineInformers {
  private readonly informers: k8s.ListWatch<PipelineResource>[];
  private closed = false;

  constructor(
    kube: Kube,
    scope: WatchScope,
    private readonly log: Logger,
    handlers: { changed: () => void; deleted: (res: PipelineResource) => void },
  ) {
    this.informers = scope.all
      ? [pipelineInformer(kube, undefined)]
      : scope.namespaces.map((ns) => pipelineInformer(kube, ns));
    for (const informer of this.informers) {
      informer.on('add', handlers.changed);
      informer.on('update', handlers.changed);
      informer.on('delete', handlers.deleted);
      informer.on('error', (error: unknown) => {
        if (this.closed) return;
        log.warn({ err: error }, 'pipeline resources informer stopped; restarting');
        setTimeout(() => {
          if (!this.closed) informer.start().catch(() => undefined);
        }, 2_000);
      });
    }
  }

  /** A missing CRD (or a list refused) is logged and retried by the informer, not fatal. */
  start(): void {
    for (const informer of this.informers)
      informer.start().catch((error: unknown) => {
        this.log.warn({ err: error }, 'pipeline resources: cannot list Pipelines yet: %s', apiMessage(error));
      });
  }

  async stop(): Promise<void> {
    this.closed = true;
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Every resource in the caches. */
  list(): PipelineResource[] {
    return this.informers.flatMap((i) => i.list());
  }
}
