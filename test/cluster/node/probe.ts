import type * as k8s from '@kubernetes/client-node';
import { waitFor } from '../helpers.js';

// A TCP connection attempted from inside the cluster: a pod of the svc image (node is in it) that
// connects once and prints what happened. What the NetworkPolicy tests ask of the node's firewall
// (kube-router, started by node.sh), from a pod of their choosing, not from this machine, whose
// traffic the node admits whatever the policy says.

export type ProbeResult = 'open' | 'timeout' | string;

// Tries once a second for `forMs`: "open" as soon as one attempt connects, else the last failure.
// A new pod's address reaches the enforcer's sets a moment after the pod starts, so one attempt
// would be refused even where the policy admits it; a refusal here held for the whole window.
const script = (host: string, port: number, forMs: number) => `
const net = require('node:net');
const until = Date.now() + ${forMs};
function attempt() {
  const s = net.connect(${port}, ${JSON.stringify(host)});
  s.setTimeout(3000);
  const retry = (why) => { s.destroy(); if (Date.now() > until) console.log(why); else setTimeout(attempt, 1000); };
  s.on('connect', () => { console.log('open'); s.destroy(); });
  s.on('timeout', () => retry('timeout'));
  s.on('error', (e) => retry(e.code));
}
attempt();`;

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
        containers: [{ name: 'probe', image, command: ['node', '-e', script(host, port, 20_000)] }],
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
