import { hostname } from 'node:os';
import type { KubernetesConfig } from '../config.js';
import type { RunnerSettings } from '../lifecycle/resources.js';
import { forTarget, type Logger } from '../logging/logger.js';
import type { PipelineBounds } from '../model/pipeline-pod.js';
import type { Database } from '../store/database.js';
import { KubernetesBackend } from './backends/kubernetes/backend.js';
import { connect } from './backends/kubernetes/kube.js';
import { podName } from './backends/kubernetes/names.js';
import { followPodLog } from './backends/kubernetes/pod-logs.js';
import { LeaderElector, type Leadership } from './backends/kubernetes/leader.js';
import { type Runner, startRunner } from './driver.js';
import { artifactServerLocator } from './artifact-locator.js';
import type { RunnerMetrics } from './metrics.js';
import { PipelineResourceController } from './pipeline-resources/controller.js';
import { readBuildInfo } from '../version.js';

// `svc runner --backend kubernetes` (and the runner of `svc manager --runner kubernetes`): the same
// driver and automaton as the local backend, with pipelines as StatefulSets. With --leader-elect it
// acts only while it holds the Lease; a standby runs no informers and writes nothing.

export interface KubernetesRunnerOptions {
  db: Database;
  log: Logger;
  config: KubernetesConfig & { logJson: boolean };
  /** The operator's bounds on a start (the API's): the Pipeline resources' controller checks them too. */
  bounds?: PipelineBounds;
  /** Base URL of the compiler's artifact server, as pipeline pods reach it. */
  artifactUrl: string;
  metrics: RunnerMetrics;
  settings?: Partial<RunnerSettings>;
  pollMs?: number;
  /** Leadership was lost: the process should exit (a new one starts as a candidate). */
  onLeadershipLost?: () => void;
}

export interface KubernetesRunner {
  /** True while this runner acts (always, without --leader-elect). */
  leading(): boolean;
  backend(): KubernetesBackend | undefined;
  /** GET /v0/pipelines/{id}/logs: the pipeline pod's log, followed; undefined when there is none. */
  followLogs(pipelineId: string, signal: AbortSignal, follow?: boolean): Promise<AsyncIterable<string> | undefined>;
  close(): Promise<void>;
}

export async function startKubernetesRunner(opts: KubernetesRunnerOptions): Promise<KubernetesRunner> {
  const log = opts.log.child({ 'svc-service': 'kubernetes-runner' });
  const { config } = opts;
  const kube = connect({ kubeconfig: config.kubeconfig, namespace: config.namespace, metrics: opts.metrics });
  let active: { backend: KubernetesBackend; runner: Runner; resources?: PipelineResourceController } | undefined;
  let leadership: Leadership | undefined;
  let closed = false;

  const act = async () => {
    const backend = new KubernetesBackend({
      kube,
      log: forTarget(log, 'svc::runner::kubernetes'),
      metrics: opts.metrics,
      pipelineAddress: config.pipelineAddress,
      unschedulableGraceMs: config.unschedulableGraceSecs * 1000,
      rescheduleGraceMs: config.podRescheduleGraceSecs * 1000,
      podLoss: { maxRestarts: config.podRestartLimit, windowMs: config.podRestartWindowSecs * 1000 },
      settings: {
        pipelineTemplateConfigmap: config.pipelineTemplateConfigmap,
        allowCustomPipelineTemplate: config.allowCustomPipelineTemplate,
        executorImage: config.pipelineExecutorImage,
        defaultStorageMb: config.defaultStorageMb,
        logJson: config.logJson,
        podDefaults: config.pipelinePodDefaults,
        ...(config.storageClass && { storageClass: config.storageClass }),
        ...(config.pipelineServiceAccount && { serviceAccount: config.pipelineServiceAccount }),
      },
    });
    try {
      await backend.start();
      const runner = await startRunner({
        db: opts.db,
        log,
        backend,
        artifacts: artifactServerLocator(opts.artifactUrl),
        settings: {
          defaultProvisioningTimeoutSecs: config.provisioningTimeoutSecs,
          initializingGraceSecs: 20,
          ...opts.settings,
        },
        pollMs: opts.pollMs,
        metrics: opts.metrics,
      });
      active = { backend, runner };
      if (config.pipelineResources) {
        // The same leadership as the runner: one controller acts, the standbys watch nothing.
        const resources = new PipelineResourceController({
          kube,
          db: opts.db,
          log: forTarget(log, 'svc::runner::pipeline_resources'),
          platformVersion: readBuildInfo().version,
          namespaces: config.pipelineResourcesNamespaces,
          ...(opts.bounds && { bounds: opts.bounds }),
          ...(opts.pollMs !== undefined && { pollMs: opts.pollMs }),
        });
        resources.start();
        active.resources = resources;
      }
    } catch (error) {
      await backend.close();
      throw error;
    }
    log.info({ namespace: kube.namespace }, 'kubernetes runner acting in namespace %s', kube.namespace);
  };

  const stopActing = async () => {
    const current = active;
    active = undefined;
    if (!current) return;
    await current.resources?.close();
    await current.runner.close();
    await current.backend.close();
  };

  let elector: LeaderElector | undefined;
  if (config.leaderElect) {
    elector = new LeaderElector({
      kube,
      log: forTarget(log, 'svc::runner::leader'),
      name: config.leaderElectionId,
      namespace: kube.namespace,
      identity: `${hostname()}_${process.pid}`,
    });
    const candidate = elector;
    // Waits in the background: a standby serves /healthz and /metrics meanwhile.
    void candidate
      .acquire()
      .then(async (won) => {
        leadership = won;
        if (closed) return won.release();
        await act();
        await won.lost;
        if (closed) return;
        await stopActing();
        opts.onLeadershipLost?.();
      })
      .catch(async (error: unknown) => {
        if (closed) return;
        // A leader that cannot act must not keep the Lease from a standby that might.
        log.error({ err: error }, 'kubernetes runner failed while leading: %s', (error as Error).message);
        await stopActing().catch(() => undefined);
        await leadership?.release();
        opts.onLeadershipLost?.();
      });
  } else {
    await act();
  }

  return {
    leading: () => active !== undefined,
    backend: () => active?.backend,
    // Any replica serves logs: the leader knows each pod's namespace from its informers; a standby
    // (no informers) reads the pod of that name in the control plane's namespace, the usual one.
    followLogs: async (pipelineId, signal, follow) =>
      active
        ? active.backend.followLogs(pipelineId, signal, follow)
        : followPodLog(kube, kube.namespace, podName(pipelineId), signal, follow),
    async close() {
      closed = true;
      elector?.stop();
      await stopActing();
      await leadership?.release();
    },
  };
}
