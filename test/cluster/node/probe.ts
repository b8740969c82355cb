import type * as k8s from '@kubernetes/client-node';
import { waitFor } from '../helpers.js';

// A TCP connection attempted from inside the cluster: a pod of the svc image (node is in it) that
// connects once and prints what happened. What the NetworkPolicy tests ask of the node's firewall
// (kube-router, started by node.sh), from a pod of their choosing, not from this machine, whose
// traffic the node admits whatever the policy says.

export type ProbeResult = 'open' | 'timeout' | string;

const script = (host: string, port: number, timeoutMs: number) => `
const s = require('node:net').connect(${port}, ${JSON.stringify(host)});
s.setTimeout(${timeoutMs});
s.on('connect', () => { console.log('open'); s.destroy(); });
s.on('timeout', () => { console.log('timeout'); s.destroy(); });
s.on('error', (e) => console.log(e.code));`;

/** Runs the probe pod `name` in `namespace` (with `labels`) to host:port; its one line of output. */
export async function tcpProbe(
  core: k8s.CoreV1Api,
  {
    namespace,
    name,
    image,
    node,
    labels = {},
  }: { namespace: string; name: string; image: string; node: string; labels?: Record<string, string> },
  host: string,
  port: number,
): Promise<ProbeResult> {
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, labels },
      spec: {
        nodeSelector: { 'kubernetes.io/hostname': node },
        restartPolicy: 'Never',
        containers: [{ name: 'probe', image, command: ['node', '-e', script(host, port, 5000)] }],
      },
    },
  });
  try {
    await waitFor(`probe ${name} done`, 120_000, async () => {
      const pod = await core.readNamespacedPod({ name, namespace });
      return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? true : undefined;
    });
    return (await core.readNamespacedPodLog({ name, namespace })).trim();
  } finally {
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
  }
}
