// Drives one pod bound to this node toward its spec: init containers in order, then the containers,
// restarts per restartPolicy with the kubelet's back-off, and the status written back. Everything
// it decides follows from the pod object (restart counts, last exits, pod IP), so a new agent picks
// up where a previous one stopped.
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { ContainerRuntime, now, type Termination } from './container.js';
import { agentMarker, containerEnv, expandRefs, processEnv } from './env.js';
import { containerArgv, findImage, type ImageConfig, type ImageSpec } from './images.js';
import { buildStatus, sameStatus } from './pod-status.js';
import { ConfigError, resolveMounts, toHostPath } from './volumes.js';

export interface AgentContext {
  core: k8s.CoreV1Api;
  nodeName: string;
  images: ImageConfig;
  stateDir: string;
  backoffBaseMs: number;
  backoffMaxMs: number;
  allocateIP: (pod: k8s.V1Pod) => string;
  /** Asks for another sync of the pod with this uid (a process exited, readiness changed). */
  kick: (uid: string) => void;
  log: (message: string) => void;
}

type ContainerStatus = k8s.V1ContainerStatus;

function terminationFrom(cs: ContainerStatus | undefined): Termination | undefined {
  const t = cs?.state?.terminated ?? cs?.lastState?.terminated;
  if (!t) return undefined;
  const iso = (d: Date | string | undefined) =>
    d instanceof Date ? d.toISOString().replace(/\.\d+Z$/, 'Z') : (d ?? now());
  return {
    exitCode: t.exitCode,
    reason: t.reason ?? 'Error',
    ...(t.message ? { message: t.message } : {}),
    startedAt: iso(t.startedAt),
    finishedAt: iso(t.finishedAt),
    containerID: t.containerID ?? 'svc-agent://0',
  };
}

export class PodWorker {
  readonly runtimes = new Map<string, ContainerRuntime>();
  podIP: string | undefined;

  constructor(
    private readonly ctx: AgentContext,
    readonly uid: string,
  ) {}

  private policy(pod: k8s.V1Pod, init: boolean): string {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    // Init containers are retried on failure unless the pod never restarts anything.
    return init && policy === 'Always' ? 'OnFailure' : policy;
  }

  private isFinal(pod: k8s.V1Pod, rt: ContainerRuntime): boolean {
    const policy = this.policy(pod, rt.name.startsWith('init:'));
    if (policy === 'Never') return true;
    if (policy === 'OnFailure') return rt.lastTermination?.exitCode === 0;
    return false;
  }

  /** The runtime for a container, seeded from the pod's status the first time this agent sees it. */
  private runtime(pod: k8s.V1Pod, key: string, statuses: ContainerStatus[] | undefined): ContainerRuntime {
    let rt = this.runtimes.get(key);
    if (!rt) {
      const name = key.replace(/^init:/, '');
      const cs = statuses?.find((s) => s.name === name);
      // A container the status shows running was a previous agent's process, stopped since:
      // starting it again is a restart.
      const restarts = (cs?.restartCount ?? 0) + (cs?.state?.running ? 1 : 0);
      rt = new ContainerRuntime(key, restarts, cs?.state?.running ? undefined : terminationFrom(cs), () =>
        this.ctx.kick(this.uid),
      );
      this.runtimes.set(key, rt);
    }
    return rt;
  }

  /** One reconciliation; returns false once the pod is gone (deleted by this agent). */
  async sync(pod: k8s.V1Pod): Promise<boolean> {
    if (pod.metadata?.deletionTimestamp) {
      await this.finishDeletion(pod);
      return false;
    }
    this.podIP ??= pod.status?.podIP ?? this.ctx.allocateIP(pod);
    const meta = pod.metadata ?? {};
    const podDir = join(this.ctx.stateDir, 'pods', `${meta.namespace ?? ''}_${meta.name ?? ''}_${this.uid}`);
    mkdirSync(podDir, { recursive: true });
    const { initDone, initFailed } = await this.runInitContainers(pod, podDir);
    if (initDone) {
      for (const c of pod.spec?.containers ?? []) {
        await this.ensureStarted(pod, this.runtime(pod, c.name, pod.status?.containerStatuses), c, podDir);
      }
    }
    await this.writeStatus(pod, initDone, initFailed);
    return true;
  }

  private async writeStatus(pod: k8s.V1Pod, initDone: boolean, initFailed: boolean): Promise<void> {
    const isFinal = (rt: ContainerRuntime) => this.isFinal(pod, rt);
    const podIP = this.podIP ?? '127.0.0.1';
    const status = buildStatus({ pod, podIP, runtimes: this.runtimes, initDone, initFailed, isFinal });
    if (sameStatus(pod, status)) return;
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    await this.ctx.core.patchNamespacedPodStatus(
      { name, namespace, body: { metadata: { uid: this.uid }, status } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }

  /** Stops the processes within the grace period, then deletes the object for good. */
  private async finishDeletion(pod: k8s.V1Pod): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    const graceSeconds = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    await this.shutdown(Math.min(graceSeconds, 30) * 1000);
    // The kubelet's last word: the processes are gone, so the object may go at once. In the body:
    // the API server ignores the query parameters when a body is sent.
    const body = { gracePeriodSeconds: 0, preconditions: { uid: this.uid } };
    await this.ctx.core.deleteNamespacedPod({ name, namespace, body }).catch((err: unknown) => {
      if (!(err instanceof k8s.ApiException) || (err.code !== 404 && err.code !== 409)) throw err;
    });
    this.ctx.log(`pod ${namespace}/${name}: stopped and deleted`);
  }

  /** Runs init containers one after the other; the containers start once all have succeeded. */
  private async runInitContainers(pod: k8s.V1Pod, podDir: string): Promise<{ initDone: boolean; initFailed: boolean }> {
    for (const c of pod.spec?.initContainers ?? []) {
      const rt = this.runtime(pod, `init:${c.name}`, pod.status?.initContainerStatuses);
      if (!rt.running && rt.lastTermination?.exitCode === 0) continue;
      if (!rt.running && rt.lastTermination && this.isFinal(pod, rt)) return { initDone: false, initFailed: true };
      await this.ensureStarted(pod, rt, c, podDir);
      return { initDone: false, initFailed: false };
    }
    return { initDone: true, initFailed: false };
  }

  /** What to do with a container that is not running: per image, restartPolicy and back-off. */
  private nextStep(pod: k8s.V1Pod, rt: ContainerRuntime, c: k8s.V1Container): 'start' | 'restart' | 'wait' {
    if (!findImage(this.ctx.images, c.image ?? '')) {
      // As the kubelet: the first failure is ErrImagePull, later ones wait in ImagePullBackOff.
      const image = c.image ?? '';
      const pulledBefore = rt.waiting?.reason === 'ErrImagePull' || rt.waiting?.reason === 'ImagePullBackOff';
      rt.waiting = pulledBefore
        ? { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` }
        : { reason: 'ErrImagePull', message: `image "${image}" is not in the node agent's image config` };
      return 'wait';
    }
    if (!rt.lastTermination) return 'start';
    if (this.isFinal(pod, rt)) {
      rt.waiting = undefined;
      return 'wait';
    }
    // The back-off follows from the pod status alone (restart count, last exit), as everything here.
    const delay = Math.min(this.ctx.backoffBaseMs * 2 ** rt.restartCount, this.ctx.backoffMaxMs);
    if (Date.now() < Date.parse(rt.lastTermination.finishedAt) + delay) {
      const podName = pod.metadata?.name ?? '';
      const message = `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${podName}`;
      rt.waiting = { reason: 'CrashLoopBackOff', message };
      return 'wait';
    }
    return 'restart';
  }

  private async ensureStarted(pod: k8s.V1Pod, rt: ContainerRuntime, c: k8s.V1Container, podDir: string): Promise<void> {
    if (rt.running) return;
    const step = this.nextStep(pod, rt, c);
    const spec = findImage(this.ctx.images, c.image ?? '');
    if (step === 'wait' || !spec) return;
    try {
      await this.launch(pod, rt, c, spec, podDir, step === 'restart');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      rt.waiting = { reason: 'CreateContainerConfigError', message: err.message };
    }
  }

  /** Resolves volumes, env and argv (ConfigError when the pod's references are missing) and starts. */
  private async launch(
    pod: k8s.V1Pod,
    rt: ContainerRuntime,
    c: k8s.V1Container,
    spec: ImageSpec,
    podDir: string,
    restart: boolean,
  ): Promise<void> {
    const podIP = this.podIP ?? '127.0.0.1';
    const mounts = await resolveMounts(this.ctx.core, pod, c, podDir);
    const envCtx = {
      core: this.ctx.core,
      pod,
      container: c,
      podIP,
      mounts,
      marker: agentMarker(this.ctx.nodeName, this.ctx.stateDir),
    };
    const own = await containerEnv(envCtx);
    const argv = containerArgv(spec, c, (arg) => toHostPath(mounts, expandRefs(arg, own)));
    const workingDir = c.workingDir ? toHostPath(mounts, c.workingDir) : podDir;
    if (restart) rt.restartCount += 1;
    rt.start({
      argv,
      env: processEnv(envCtx, own, spec.env),
      cwd: existsSync(workingDir) ? workingDir : podDir,
      logFile: join(podDir, `${rt.name.replace(':', '-')}.log`),
      container: c,
      readinessProbe: rt.name.startsWith('init:') ? undefined : c.readinessProbe,
      podIP,
    });
    const podName = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    this.ctx.log(`pod ${podName}: started ${rt.name} (pid ${rt.pid ?? '?'}): ${argv.join(' ')}`);
  }

  /** Stops every process of the pod. */
  async shutdown(graceMs: number): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((rt) => rt.stop(graceMs)));
  }
}
