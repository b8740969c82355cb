// The cluster has no kube-scheduler: the agent binds every unscheduled pod to its one node through
// the binding subresource, once the pod's PersistentVolumeClaims are bound (as the scheduler's
// volume-binding step requires for Immediate-mode claims).
import * as k8s from '@kubernetes/client-node';

export class Scheduler {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly core: k8s.CoreV1Api,
    private readonly nodeName: string,
    private readonly log: (message: string) => void,
  ) {}

  private async claimsBound(pod: k8s.V1Pod, namespace: string): Promise<boolean> {
    for (const volume of pod.spec?.volumes ?? []) {
      const claim = volume.persistentVolumeClaim?.claimName;
      if (!claim) continue;
      const pvc = await this.core
        .readNamespacedPersistentVolumeClaim({ name: claim, namespace })
        .catch(() => undefined);
      if (pvc?.status?.phase !== 'Bound') return false;
    }
    return true;
  }

  /** Binds `pod` to this node if it can run now; otherwise a later sync tries again. */
  async bind(pod: k8s.V1Pod): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    const uid = pod.metadata?.uid ?? '';
    if (this.inFlight.has(uid)) return;
    this.inFlight.add(uid);
    try {
      if (!(await this.claimsBound(pod, namespace))) return;
      await this.core.createNamespacedPodBinding({
        name,
        namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace, uid },
          target: { apiVersion: 'v1', kind: 'Node', name: this.nodeName },
        },
      });
      this.log(`pod ${namespace}/${name}: bound to ${this.nodeName}`);
    } catch (err) {
      // 409: bound meanwhile (by us, on an earlier event); 404: deleted meanwhile.
      if (!(err instanceof k8s.ApiException) || (err.code !== 409 && err.code !== 404)) throw err;
    } finally {
      this.inFlight.delete(uid);
    }
  }
}
