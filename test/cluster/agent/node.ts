// The one Node object this agent stands for: registered if missing, kept Ready through status
// heartbeats and a Lease in kube-node-lease, as a kubelet would.
import { readFileSync } from 'node:fs';
import { arch, cpus, release, totalmem } from 'node:os';
import * as k8s from '@kubernetes/client-node';

const KUBE_VERSION = 'v1.34.4';

function isConflictOr404(err: unknown, code: number): boolean {
  return err instanceof k8s.ApiException && err.code === code;
}

function nodeStatus(): Record<string, unknown> {
  const heartbeat = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: heartbeat,
  });
  const capacity = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '250' };
  let bootID = '';
  try {
    bootID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: leave it empty.
  }
  return {
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'node agent has sufficient memory'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'node agent has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'node agent has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'svc test node agent is posting ready status'),
    ],
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'localhost' },
    ],
    capacity,
    allocatable: capacity,
    nodeInfo: {
      machineID: '',
      systemUUID: '',
      bootID,
      kernelVersion: release(),
      osImage: 'svc test node agent (processes, no containers)',
      containerRuntimeVersion: 'svc-agent://1',
      kubeletVersion: KUBE_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: arch() === 'x64' ? 'amd64' : arch(),
    },
  };
}

export class NodeHeartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly nodeName: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Registers the node (if missing), reports it Ready, and keeps doing so every `periodMs`. */
  async start(periodMs = 10_000): Promise<void> {
    const core = this.kc.makeApiClient(k8s.CoreV1Api);
    try {
      await core.createNode({
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name: this.nodeName,
            labels: {
              'kubernetes.io/hostname': this.nodeName,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': arch() === 'x64' ? 'amd64' : arch(),
            },
          },
        },
      });
      this.log(`node ${this.nodeName}: registered`);
    } catch (err) {
      if (!isConflictOr404(err, 409)) throw err;
    }
    await this.beat();
    // TaintNodesByCondition adds not-ready taints at registration and the node lifecycle
    // controller, which would lift them, is off in this cluster: lift them here once Ready.
    await core.patchNode(
      { name: this.nodeName, body: { spec: { taints: null } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    this.timer = setInterval(() => {
      this.beat().catch((err: unknown) => this.log(`node heartbeat failed: ${String(err)}`));
    }, periodMs);
  }

  private async beat(): Promise<void> {
    const core = this.kc.makeApiClient(k8s.CoreV1Api);
    await core.patchNodeStatus(
      { name: this.nodeName, body: { status: nodeStatus() } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    const leases = this.kc.makeApiClient(k8s.CoordinationV1Api);
    const namespace = 'kube-node-lease';
    // renewTime is a MicroTime (six fractional digits); the client would send a Date with three,
    // which the API server rejects, so it is written as a string through a merge patch.
    const renewTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const spec = { holderIdentity: this.nodeName, leaseDurationSeconds: 40, renewTime };
    const patch = () =>
      leases.patchNamespacedLease(
        { name: this.nodeName, namespace, body: { spec } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    try {
      await patch();
    } catch (err) {
      if (!isConflictOr404(err, 404)) throw err;
      await leases.createNamespacedLease({ namespace, body: { metadata: { name: this.nodeName, namespace } } });
      await patch();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
