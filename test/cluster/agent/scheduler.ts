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

  /**
   * As kube-scheduler's NodeSelector filter: a pod whose nodeSelector the node's labels do not
   * satisfy stays Pending with PodScheduled=False/Unschedulable (set once; a later sync retries).
   */
  private async fits(pod: k8s.V1Pod, namespace: string): Promise<boolean> {
    const selector = pod.spec?.nodeSelector ?? {};
    if (Object.keys(selector).length === 0) return true;
    if (this.forAnotherNode(selector)) return false;
    const node = await this.core.readNode({ name: this.nodeName });
    const labels = node.metadata?.labels ?? {};
    if (Object.entries(selector).every(([k, v]) => labels[k] === v)) return true;
    const already = pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
    if (!already) {
      await this.core.patchNamespacedPodStatus(
        {
          name: pod.metadata?.name ?? '',
          namespace,
          body: {
            status: {
              conditions: [
                {
                  type: 'PodScheduled',
                  status: 'False',
                  reason: 'Unschedulable',
                  message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
                  lastTransitionTime: new Date(),
                },
              ],
            },
          },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      );
      this.log(`pod ${namespace}/${pod.metadata?.name ?? ''}: Unschedulable (nodeSelector does not match)`);
    }
    return false;
  }

  /**
   * A pod that names another node by hostname is that node's scheduler's (kube-scheduler with the
   * real node, node/README.md): this agent writes nothing on it. Its Unschedulable, written from a
   * stale view, could land after the scheduler's own verdict or binding and replace its message.
   */
  private forAnotherNode(selector: Record<string, string>): boolean {
    const host = selector['kubernetes.io/hostname'];
    return host !== undefined && host !== this.nodeName;
  }

  /** Binds `pod` to this node if it can run now; otherwise a later sync tries again. */
  async bind(pod: k8s.V1Pod): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    const uid = pod.metadata?.uid ?? '';
    if (this.inFlight.has(uid)) return;
    this.inFlight.add(uid);
    try {
      if (!(await this.fits(pod, namespace))) return;
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
