import type { V1Pod } from '@kubernetes/client-node';
import pLimit from 'p-limit';
import type { Logger } from '../../../logging/logger.js';
import type { Backend, Deployment, PipelineContext, ProvisionResult, Readiness, Transition } from '../../backend.js';
import { SvcError } from '../../../model/errors.js';
import type { RunnerMetrics } from '../../metrics.js';
import { ClusterCache } from './cache.js';
import { recordTransition } from './events.js';
import { ignoreNotFound, type Kube } from './kube.js';
import { objectName, podName, pvcName } from './names.js';
import { followPodLog } from './pod-logs.js';
import { deleteCompanions, provision, type ProvisionSettings } from './provision.js';
import {
  DEFAULT_POD_LOSS_POLICY,
  type LossHistory,
  lossVerdict,
  observeLosses,
  type PodLossPolicy,
  recentLosses,
} from './pod-loss.js';
import {
  podLossMessage,
  podWaitingMessage,
  POD_UNSCHEDULABLE_REASON,
  recordPodLoss,
  recordPodWarning,
} from './pod-loss-events.js';
import { classify, type Observed, waitingForNode } from './readiness.js';
import { PIPELINE_PORT } from './template/index.js';

// The Kubernetes backend (KUBERNETES.md): pipelines as StatefulSets. Reads come from the informers'
// caches (no API call per reconcile); writes are server-side applies and deletes.

export interface KubernetesBackendOptions {
  kube: Kube;
  log: Logger;
  metrics: RunnerMetrics;
  settings: Omit<ProvisionSettings, 'controlNamespace' | 'storagePath'>;
  /** service-dns: `{id}-0.{id}.{namespace}.svc`; pod-ip: the pod's IP (no cluster DNS, e.g. tests). */
  pipelineAddress: 'service-dns' | 'pod-ip';
  unschedulableGraceMs?: number;
  /** How long the pod replacing a lost one of a fault-tolerant pipeline may wait for a node. */
  rescheduleGraceMs?: number;
  /** How long a FailedMount may last on a pod that started nothing; default MOUNT_GRACE_MS. */
  mountGraceMs?: number;
  /** Restarts of a fault-tolerant pipeline's pod tolerated within a window (pod-loss.ts). */
  podLoss?: PodLossPolicy;
  /** Every pipeline with objects in the cache gets a look this often (no API call: a resync). */
  resyncMs?: number;
  now?: () => number;
}

/** Where `{pipeline_storage_path}` is mounted in the pod. */
export const POD_STORAGE_PATH = '/var/lib/svc/storage';
const DEFAULT_UNSCHEDULABLE_GRACE_MS = 60_000;
/** Node maintenance (a drain, a node-pool upgrade, a cluster autoscaler adding a node) takes minutes. */
const DEFAULT_RESCHEDULE_GRACE_MS = 30 * 60_000;
/** How long a FailedMount may last before it stops the pipeline (readiness.ts eventFailure). */
const MOUNT_GRACE_MS = 30_000;
const DEFAULT_RESYNC_MS = 5 * 60_000;
/**
 * Deployments applied at once. Each is ~6 API requests whose responses the runner decodes on its
 * one thread; with all of a 200-pipeline wave in flight, the pod events of the first pods to turn
 * Ready queued behind hundreds of responses (on a busy machine, for hundreds of ms). The
 * StatefulSet controller creates the pods far slower than this many applies go through.
 */
const PROVISION_CONCURRENCY = 8;

export class KubernetesBackend implements Backend {
  readonly name = 'kubernetes';
  readonly cache: ClusterCache;
  private readonly listeners: Array<(id: string) => void> = [];
  private resync: NodeJS.Timeout | undefined;
  private readonly applying = pLimit(PROVISION_CONCURRENCY);
  /** Pod losses of fault-tolerant pipelines, by pipeline id (forgotten at a stop or a new deployment). */
  private readonly losses = new Map<string, LossHistory>();
  /** The pod uid whose wait for a node was told already, by pipeline id (told once per pod). */
  private readonly waitsTold = new Map<string, string>();

  constructor(private readonly opts: KubernetesBackendOptions) {
    this.cache = new ClusterCache({
      kube: opts.kube,
      log: opts.log,
      metrics: opts.metrics,
      onPipeline: (id) => this.emit(id),
    });
  }

  /** Watches the control plane's namespace from the start (the usual home of every pipeline). */
  async start(): Promise<void> {
    await this.cache.watch(this.opts.kube.namespace);
    // The periodic full resync: replays what the caches hold, so an event lost in a handler, or
    // objects of a pipeline deleted while no runner ran (orphans), still get a look.
    this.resync = setInterval(() => {
      for (const id of this.cache.pipelineIds()) this.emit(id);
    }, this.opts.resyncMs ?? DEFAULT_RESYNC_MS);
    this.resync.unref();
  }

  private emit(id: string): void {
    for (const listener of this.listeners) listener(id);
  }

  private namespace(context?: PipelineContext): string {
    return context?.namespace ?? this.opts.kube.namespace;
  }

  storagePath(): string {
    return POD_STORAGE_PATH;
  }

  async provision(deployment: Deployment): Promise<ProvisionResult> {
    const namespace = this.namespace(deployment);
    // Watch first: the objects' events must not be missed.
    await this.cache.watch(namespace);
    const settings = {
      ...this.opts.settings,
      controlNamespace: this.opts.kube.namespace,
      storagePath: POD_STORAGE_PATH,
    };
    try {
      await this.applying(() => provision(this.opts.kube, deployment, namespace, settings, this.opts.log));
    } catch (error) {
      // A template or object the cluster refuses: the start failed, for good (deployment_error).
      if (error instanceof SvcError) return { kind: 'failed', error: error.toBody() };
      throw error;
    }
    return { kind: 'started' };
  }

  async readiness(pipelineId: string, deploymentId: string, context?: PipelineContext): Promise<Readiness> {
    const namespace = this.namespace(context);
    const observed = await this.cache.observed(namespace, pipelineId);
    const id = objectName(pipelineId);
    const now = (this.opts.now ?? Date.now)();
    const phase = context?.phase ?? 'provisioning';
    const tolerateLoss = context?.faultTolerant === true;
    if (phase === 'provisioned' && tolerateLoss) {
      const failed = this.countLosses(
        { pipelineId, deploymentId, namespace, name: context.pipelineName },
        observed,
        now,
      );
      if (failed) return failed;
      this.tellWaitForNode({ pipelineId, namespace, name: context.pipelineName }, observed, now);
    }
    return classify(observed, {
      objectName: id,
      phase,
      deploymentId,
      tolerateLoss,
      now,
      unschedulableGraceMs: this.opts.unschedulableGraceMs ?? DEFAULT_UNSCHEDULABLE_GRACE_MS,
      rescheduleGraceMs: this.rescheduleGraceMs(),
      mountGraceMs: this.opts.mountGraceMs ?? MOUNT_GRACE_MS,
      address: (pod: V1Pod) => {
        if (this.opts.pipelineAddress === 'service-dns')
          return `http://${id}-0.${id}.${namespace}.svc:${PIPELINE_PORT}`;
        return pod.status?.podIP ? `http://${pod.status.podIP}:${PIPELINE_PORT}` : undefined;
      },
    });
  }

  /**
   * Counts the pod's losses (each told once: an Event on the StatefulSet and a log line); past the
   * policy's restarts within its window the pipeline fails with the last loss as its error.
   */
  private countLosses(
    who: { pipelineId: string; deploymentId: string; namespace: string; name: string | undefined },
    observed: Observed,
    now: number,
  ): Readiness | undefined {
    const { pipelineId, deploymentId, namespace } = who;
    const policy = this.opts.podLoss ?? DEFAULT_POD_LOSS_POLICY;
    const name = `${objectName(pipelineId)}-0`;
    const { history, fresh } = observeLosses(this.losses.get(pipelineId), deploymentId, name, observed.pod, now);
    history.losses = recentLosses(history, now, policy);
    this.losses.set(pipelineId, history);
    const error = lossVerdict(history, now, policy);
    for (const loss of fresh) {
      const restarts = history.losses.filter((l) => l.at <= loss.at).length;
      const fields = {
        pipeline_id: pipelineId,
        pod: loss.pod,
        reason: loss.reason,
        restarts,
        max_restarts: policy.maxRestarts,
      };
      this.opts.log.warn(fields, 'pipeline %s', podLossMessage(loss, restarts, policy));
      const uid = observed.statefulSet?.metadata?.uid;
      void recordPodLoss(this.opts.kube, {
        namespace,
        pipelineId,
        pipelineName: who.name,
        uid,
        loss,
        restarts,
        policy,
      }).catch((err: unknown) =>
        this.opts.log.warn({ err, pipeline_id: pipelineId }, 'could not record a Kubernetes event'),
      );
    }
    return error ? { kind: 'fatal', error } : undefined;
  }

  private rescheduleGraceMs(): number {
    return this.opts.rescheduleGraceMs ?? DEFAULT_RESCHEDULE_GRACE_MS;
  }

  /** A lost pod's successor that no node takes: one Event and one log line per pod, saying how long it may wait. */
  private tellWaitForNode(
    who: { pipelineId: string; namespace: string; name: string | undefined },
    observed: Observed,
    now: number,
  ): void {
    const uid = observed.pod?.metadata?.uid;
    const waiting = waitingForNode(observed.pod, now);
    if (!waiting || !uid || this.waitsTold.get(who.pipelineId) === uid) return;
    this.waitsTold.set(who.pipelineId, uid);
    const pod = `${objectName(who.pipelineId)}-0`;
    const message = podWaitingMessage(pod, waiting.message, this.rescheduleGraceMs());
    this.opts.log.warn({ pipeline_id: who.pipelineId, pod, reason: 'Unschedulable' }, 'pipeline %s', message);
    void recordPodWarning(this.opts.kube, {
      reason: POD_UNSCHEDULABLE_REASON,
      namespace: who.namespace,
      pipelineId: who.pipelineId,
      pipelineName: who.name,
      uid: observed.statefulSet?.metadata?.uid,
      message,
    }).catch((err: unknown) =>
      this.opts.log.warn({ err, pipeline_id: who.pipelineId }, 'could not record a Kubernetes event'),
    );
  }

  /**
   * Deletes the StatefulSet with foreground propagation: the API server keeps it until its pod is
   * gone, so a 404 means nothing of the deployment runs. The delete is sent on every look (not
   * decided from the cache), so a StatefulSet applied a moment ago that the cache has not seen yet
   * is still found.
   */
  async stop(pipelineId: string, context?: PipelineContext): Promise<boolean> {
    const { kube } = this.opts;
    const namespace = this.namespace(context);
    const name = objectName(pipelineId);
    // Already being deleted (foreground): wait for the informer to see it go, no request.
    const cached = await this.cache.observed(namespace, pipelineId);
    if (cached.statefulSet?.metadata?.deletionTimestamp) return false;
    const gone = await ignoreNotFound(
      kube.call('delete', 'statefulsets', () =>
        kube.apps.deleteNamespacedStatefulSet({ name, namespace, propagationPolicy: 'Foreground' }),
      ),
    );
    if (!gone) return false;
    this.losses.delete(pipelineId);
    this.waitsTold.delete(pipelineId);
    // Owned by the StatefulSet, so normally collected; deleted here too in case they were applied
    // without their owner (a crash between the two applies).
    await deleteCompanions(kube, name, namespace);
    const observed = await this.cache.observed(namespace, pipelineId);
    return observed.pod === undefined;
  }

  /** Deletes the pipeline's PVCs; true once the API server has none left. */
  async clear(pipelineId: string, context?: PipelineContext): Promise<boolean> {
    const { kube } = this.opts;
    const namespace = this.namespace(context);
    const names = new Set([pvcName(pipelineId)]);
    for (const claim of await this.cache.claimsOf(namespace, pipelineId)) names.add(claim.metadata?.name ?? '');
    const gone = await Promise.all(
      [...names].map((name) =>
        ignoreNotFound(
          kube.call('delete', 'persistentvolumeclaims', () =>
            kube.core.deleteNamespacedPersistentVolumeClaim({ name, namespace }),
          ),
        ),
      ),
    );
    return gone.every(Boolean);
  }

  /** The pipeline pod's log, followed (issue 29); undefined when no pod of it is known. */
  async followLogs(pipelineId: string, signal: AbortSignal, follow = true): Promise<AsyncIterable<string> | undefined> {
    const namespace = this.cache.namespaceOfPod(pipelineId);
    if (!namespace) return undefined;
    return followPodLog(this.opts.kube, namespace, podName(pipelineId), signal, follow);
  }

  onChange(listener: (pipelineId: string) => void): void {
    this.listeners.push(listener);
  }

  onTransition(transition: Transition): void {
    const namespace = transition.namespace ?? this.opts.kube.namespace;
    const uid = this.cache.statefulSetUid(namespace, transition.pipelineId);
    void recordTransition(this.opts.kube, { ...transition, namespace, uid }).catch((error: unknown) =>
      this.opts.log.warn({ err: error, pipeline_id: transition.pipelineId }, 'could not record a Kubernetes event'),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.resync);
    await this.cache.close();
  }
}
