import * as k8s from '@kubernetes/client-node';
import type { Logger } from '../../../logging/logger.js';
import type { RunnerMetrics } from '../../metrics.js';
import type { Kube } from './kube.js';
import { MANAGED_SELECTOR, objectName, pipelineIdFromName, pipelineIdOf, podName, pvcName } from './names.js';
import type { Observed } from './readiness.js';

// What the runner knows of the cluster: informers (list once, then watch from the resourceVersion,
// relist on 410 Gone) per namespace on the runner's StatefulSets, Pods and PVCs (by label) and on
// Warning events (events carry no labels: they are matched to a pipeline by the involved object's
// name). Every change wakes that pipeline's automaton. Steady state costs watches, not lists.

type Resource = 'statefulsets' | 'pods' | 'persistentvolumeclaims' | 'events';
const SYNC_TIMEOUT_MS = 30_000;
const RESTART_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];

interface Informers {
  statefulsets: k8s.ListWatch<k8s.V1StatefulSet>;
  pods: k8s.ListWatch<k8s.V1Pod>;
  persistentvolumeclaims: k8s.ListWatch<k8s.V1PersistentVolumeClaim>;
  events: k8s.ListWatch<k8s.CoreV1Event>;
}

export interface CacheOptions {
  kube: Kube;
  log: Logger;
  metrics: RunnerMetrics;
  onPipeline(pipelineId: string): void;
}

export class ClusterCache {
  private readonly namespaces = new Map<string, Promise<Informers>>();
  private readonly started = new Map<string, Informers>();
  /** Namespaces whose informers have listed their objects: looked up without waiting. */
  private readonly synced = new Map<string, Informers>();
  /**
   * Warning events by namespace and pipeline id (then by event uid), kept by the events informer's
   * handlers. A look at a pipeline used to scan every Warning of the namespace and parse each
   * name: in a 200-pipeline wave that scan was ~5 % of the runner's busy time.
   */
  private readonly warnings = new Map<string, Map<string, k8s.CoreV1Event>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly opts: CacheOptions) {}

  /**
   * Starts the namespace's informers once and waits for their first list. The informers keep
   * retrying a list that fails (e.g. forbidden); a caller gives up after SYNC_TIMEOUT_MS.
   */
  async watch(namespace: string): Promise<Informers> {
    const ready = this.synced.get(namespace);
    if (ready) return ready;
    let informers = this.namespaces.get(namespace);
    if (!informers) {
      informers = this.startNamespace(namespace);
      this.namespaces.set(namespace, informers);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the informers of namespace ${namespace} have not listed their objects yet`)),
        SYNC_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([informers, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async observed(namespace: string, pipelineId: string): Promise<Observed> {
    const informers = await this.watch(namespace);
    const pod = informers.pods.get(podName(pipelineId), namespace);
    const pvc = informers.persistentvolumeclaims.get(pvcName(pipelineId), namespace);
    const warnings = [...(this.warnings.get(`${namespace}/${pipelineId}`)?.values() ?? [])];
    return {
      statefulSet: informers.statefulsets.get(objectName(pipelineId), namespace),
      ...(pod && { pod }),
      ...(pvc && { pvc }),
      warnings,
    };
  }

  /** Every PVC of the pipeline (one per replica: one today). */
  async claimsOf(namespace: string, pipelineId: string): Promise<k8s.V1PersistentVolumeClaim[]> {
    const informers = await this.watch(namespace);
    return informers.persistentvolumeclaims.list(namespace).filter((c) => pipelineIdOf(c) === pipelineId);
  }

  /** Pipeline ids that have objects in the watched namespaces (for the periodic resync). */
  pipelineIds(): Set<string> {
    const ids = new Set<string>();
    for (const informers of this.started.values()) {
      for (const list of [
        informers.statefulsets.list(),
        informers.pods.list(),
        informers.persistentvolumeclaims.list(),
      ]) {
        for (const obj of list) {
          const id = pipelineIdOf(obj);
          if (id) ids.add(id);
        }
      }
    }
    return ids;
  }

  /** The StatefulSet's uid as the cache has it (for Events about it), without waiting. */
  statefulSetUid(namespace: string, pipelineId: string): string | undefined {
    return this.started.get(namespace)?.statefulsets.get(objectName(pipelineId), namespace)?.metadata?.uid;
  }

  /** The namespace whose informer holds the pipeline's pod, if any (the logs route knows only the id). */
  namespaceOfPod(pipelineId: string): string | undefined {
    for (const [namespace, informers] of this.synced) {
      if (informers.pods.get(podName(pipelineId), namespace)) return namespace;
    }
    return undefined;
  }

  watchedNamespaces(): string[] {
    return [...this.namespaces.keys()];
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const informers of this.started.values()) {
      for (const informer of Object.values(informers) as Array<k8s.ListWatch<k8s.KubernetesObject>>) {
        await informer.stop();
      }
    }
  }

  private async startNamespace(namespace: string): Promise<Informers> {
    const { kube } = this.opts;
    const watch = new k8s.Watch(kube.config);
    // The client swallows a failed first list (it reports it as an 'error'), so "synced" is known
    // from the list function itself.
    const synced: Array<Promise<void>> = [];
    const list = <T>(resource: Resource, request: () => Promise<T>) => {
      let done: () => void = () => undefined;
      synced.push(new Promise<void>((resolve) => (done = resolve)));
      return async () => {
        const result = await kube.call('list', resource, request);
        done();
        return result;
      };
    };
    const byLabel = { namespace, labelSelector: MANAGED_SELECTOR };
    const informer = <T extends k8s.KubernetesObject>(
      resource: Resource,
      path: string,
      request: () => Promise<k8s.KubernetesListObject<T>>,
      selectors: [label: string | undefined, field?: string] = [MANAGED_SELECTOR],
    ) => new k8s.ListWatch<T>(path, watch, list(resource, request), false, ...selectors);
    const core = `/api/v1/namespaces/${namespace}`;
    const informers: Informers = {
      statefulsets: informer('statefulsets', `/apis/apps/v1/namespaces/${namespace}/statefulsets`, () =>
        kube.apps.listNamespacedStatefulSet(byLabel),
      ),
      pods: informer('pods', `${core}/pods`, () => kube.core.listNamespacedPod(byLabel)),
      persistentvolumeclaims: informer('persistentvolumeclaims', `${core}/persistentvolumeclaims`, () =>
        kube.core.listNamespacedPersistentVolumeClaim(byLabel),
      ),
      events: informer(
        'events',
        `${core}/events`,
        () => kube.core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' }),
        [undefined, 'type=Warning'],
      ),
    };
    for (const [resource, informer] of Object.entries(informers) as Array<
      [Resource, k8s.ListWatch<k8s.KubernetesObject>]
    >) {
      this.wire(namespace, resource, informer);
    }
    this.indexWarnings(namespace, informers.events);
    this.started.set(namespace, informers);
    for (const informer of Object.values(informers) as Array<k8s.ListWatch<k8s.KubernetesObject>>) {
      void informer.start();
    }
    await Promise.all(synced);
    // The cache is filled right after the list function returns.
    await new Promise((resolve) => setImmediate(resolve));
    this.synced.set(namespace, informers);
    this.opts.log.info({ namespace }, 'watching namespace %s', namespace);
    return informers;
  }

  /** Keeps `warnings` in step with the events informer (a relist reports vanished ones as deletes). */
  private indexWarnings(namespace: string, informer: k8s.ListWatch<k8s.CoreV1Event>): void {
    const keyOf = (e: k8s.CoreV1Event) => {
      const id = pipelineIdFromName(e.involvedObject.name);
      return id ? `${namespace}/${id}` : undefined;
    };
    const put = (e: k8s.CoreV1Event) => {
      const key = keyOf(e);
      if (!key) return;
      let events = this.warnings.get(key);
      if (!events) this.warnings.set(key, (events = new Map()));
      events.set(e.metadata.uid ?? e.metadata.name ?? '', e);
    };
    informer.on('add', put);
    informer.on('update', put);
    informer.on('delete', (e) => {
      const key = keyOf(e);
      const events = key ? this.warnings.get(key) : undefined;
      events?.delete(e.metadata.uid ?? e.metadata.name ?? '');
      if (key && events?.size === 0) this.warnings.delete(key);
    });
  }

  private wire(namespace: string, resource: Resource, informer: k8s.ListWatch<k8s.KubernetesObject>): void {
    const wake = (obj: k8s.KubernetesObject) => {
      const id =
        resource === 'events'
          ? pipelineIdFromName((obj as k8s.CoreV1Event).involvedObject.name)
          : pipelineIdOf(obj as { metadata?: { labels?: Record<string, string> } });
      if (id) this.opts.onPipeline(id);
    };
    informer.on('add', wake);
    informer.on('update', wake);
    informer.on('delete', wake);
    let failures = 0;
    informer.on('connect', () => {
      this.opts.metrics.apiRequests.inc({ verb: 'watch', resource });
    });
    // The client stops an informer on most errors; start it again, with a growing delay.
    informer.on('error', (error: unknown) => {
      if (this.closed) return;
      const delay = RESTART_DELAYS_MS[Math.min(failures, RESTART_DELAYS_MS.length - 1)] ?? 30_000;
      failures += 1;
      this.opts.metrics.informerRestarts.inc({ resource });
      this.opts.log.warn(
        { namespace, resource, retry_in_ms: delay, err: error },
        'informer of %s stopped; restarting',
        resource,
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.closed) return;
        informer.start().then(
          () => {
            failures = 0;
          },
          () => undefined, // reported through 'error' again
        );
      }, delay);
      this.timers.add(timer);
    });
  }
}
