import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { repoRoot } from '../test/chart/helm.js';
import { startCluster, stopCluster } from '../test/cluster/control-plane/cluster.js';
import { NODE, REAL_NODE_TEMPLATE } from '../test/cluster/node/template.js';
import { scriptValues } from '../test/support/script-values.js';
import type { Cleanup } from './common.js';
import { say, sleep } from './common.js';
import {
  foreignPods,
  runnerKubeconfig,
  startApiAndCompiler,
  started,
  waitForDefaultAccount,
} from './kubernetes-world.js';

// What `npm run bench:pod-loss` runs against: the test cluster with the real node joined
// (test/cluster/node/node.sh: containerd, kubelet, kube-scheduler; pods are containers of the svc
// image), in a state dir of its own, and `svc api-server`, `svc compiler-server` (on the node's
// bridge address: pods fetch their program from it) and `svc runner --backend kubernetes` on this
// machine, as the real-node tests set them up (test/cluster/node/world.ts, which imports vitest).

export const STATE_DIR = process.env['SVC_BENCH_REAL_NODE_STATE'] ?? '/tmp/svc-real-node-bench';
/** The node agent's pod addresses: apart from the tests' 127.12–127.212 and cluster:up's 127.10. */
const POD_SUBNET = '127.213';
export const NAMESPACE = 'svc-bench-pod-loss';

export interface RealNodeWorld {
  admin: k8s.KubeConfig;
  api: string;
  svcImage: string;
  postgres: string;
}

/** Starts everything; each piece pushes its own cleanup. `runnerArgs` go to the runner. */
export async function startRealNodeWorld(
  cleanups: Cleanup[],
  maxWaitS: number,
  runnerArgs: readonly string[],
): Promise<RealNodeWorld> {
  // Our cluster's node agent would stop the pods of another test cluster's agent (same node name).
  const deadline = Date.now() + maxWaitS * 1000;
  while (foreignPods(STATE_DIR).length > 0) {
    if (Date.now() > deadline) throw new Error(`pods of another test cluster still run`);
    say(`waiting: pod processes of another test cluster run, which our node agent would kill`);
    await sleep(15_000);
  }
  cleanups.push(() => stopCluster(STATE_DIR, say)); // takes the real node down first
  const cluster = await startCluster({ stateDir: STATE_DIR, podSubnet: POD_SUBNET, log: say });
  const node = scriptValues(join(repoRoot, 'test', 'cluster', 'node', 'node.sh'), ['up'], {
    ...process.env,
    SVC_CLUSTER_STATE: STATE_DIR,
  });
  const svcImage = node['SVC_IMAGE'];
  if (!svcImage) throw new Error(`node.sh up printed no SVC_IMAGE: ${JSON.stringify(node)}`);

  const admin = new k8s.KubeConfig();
  admin.loadFromFile(cluster.kubeconfig);
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const nodeIp = (await core.readNode({ name: NODE })).status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (!nodeIp) throw new Error(`node ${NODE} has no InternalIP`);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await waitForDefaultAccount(core, NAMESPACE);
  await core.createNamespacedConfigMap({
    namespace: NAMESPACE,
    body: { metadata: { name: 'svc-pipeline-template' }, data: { pipelineTemplate: REAL_NODE_TEMPLATE } },
  });
  const saDir = await runnerKubeconfig(admin, NAMESPACE);
  cleanups.push(async () => rmSync(saDir, { recursive: true, force: true }));

  const { db, common, api, compiler } = await startApiAndCompiler(cleanups, ['--bind-address', nodeIp]);
  // Cleanups run in reverse: the runner stops before the cluster does.
  await started(
    [
      ...['runner', '--backend', 'kubernetes', ...common, '--compiler-url', compiler.url],
      ...['--kubeconfig', join(saDir, 'kubeconfig'), '--namespace', NAMESPACE],
      ...['--pipeline-address', 'pod-ip', '--pipeline-executor-image', svcImage, '--port', '0'],
      ...runnerArgs,
    ],
    'svc runner ready',
    cleanups,
  );
  return { admin, api: api.url, svcImage, postgres: `${db.serverVersion} (${db.where})` };
}
