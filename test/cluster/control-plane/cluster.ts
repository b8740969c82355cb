// Starts and stops the whole test cluster: etcd, kube-apiserver, kube-controller-manager and the
// node agent, each a detached daemon with a pid file under the state dir (outside the repo).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { writeKubeconfig } from './kubeconfig.js';
import { apiserverArgs, controllerManagerArgs, etcdArgs, type Ports } from './daemons.js';
import { makeClientCert, makePki } from './pki.js';
import { GaveUp, freePort, isAlive, markedProcesses, readPid, startDaemon, terminate, waitFor } from './processes.js';

const clusterDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(clusterDir, '..', '..');

export const NODE_NAME = 'svc-test-node';

export interface ClusterOptions {
  stateDir: string;
  /** First two octets of the pods' loopback addresses, e.g. "127.10"; differs per cluster. */
  podSubnet: string;
  log?: (line: string) => void;
}

export interface ClusterInfo {
  stateDir: string;
  podSubnet: string;
  server: string;
  kubeconfig: string;
  caFile: string;
  binDir: string;
}

/** Runs build.sh (which reuses cached binaries) and returns the bin dir it prints last. */
export function buildBinaries(): string {
  const out = execFileSync('bash', [join(clusterDir, 'build.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const bin = out.trim().split('\n').pop();
  if (!bin) throw new Error('build.sh printed no bin dir');
  return bin;
}

function httpsOk(url: string, caFile: string): Promise<true | undefined> {
  return new Promise((resolveOk) => {
    const req = request(url, { ca: readFileSync(caFile), timeout: 2000 }, (res) => {
      res.resume();
      resolveOk(res.statusCode === 200 ? true : undefined);
    });
    req.on('error', () => resolveOk(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export async function startCluster(opts: ClusterOptions): Promise<ClusterInfo> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { stateDir } = opts;
  if (existsSync(stateDir)) await stopCluster(stateDir, log);
  const binDir = buildBinaries();
  const t0 = Date.now();
  const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  mkdirSync(stateDir, { recursive: true });
  const pki = makePki(join(stateDir, 'pki'));
  const admin = makeClientCert(pki, 'admin', 'svc-admin', ['system:masters']);
  const kcm = makeClientCert(pki, 'kcm', 'system:kube-controller-manager', []);
  const kubeletClient = makeClientCert(pki, 'apiserver-kubelet', 'kube-apiserver-kubelet-client', ['system:masters']);
  const ports: Ports = { etcd: 0, etcdPeer: 0, apiserver: 0, controllerManager: 0 };
  for (const key of Object.keys(ports) as Array<keyof Ports>) ports[key] = await freePort();
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const kubeconfig = writeKubeconfig(join(stateDir, 'admin.kubeconfig'), {
    server,
    caFile: pki.caCert,
    user: 'svc-admin',
    credentials: { clientCertFile: admin.cert, clientKeyFile: admin.key },
  });
  const kcmKubeconfig = writeKubeconfig(join(stateDir, 'kcm.kubeconfig'), {
    server,
    caFile: pki.caCert,
    user: 'system:kube-controller-manager',
    credentials: { clientCertFile: kcm.cert, clientKeyFile: kcm.key },
  });
  log(`cluster: certificates and kubeconfigs made in ${elapsed()}`);

  // Everything starts at once: the controller manager and the node agent wait for the API server
  // themselves, and their own start-up overlaps its.
  startDaemon('etcd', join(binDir, 'etcd'), etcdArgs(stateDir, ports), { stateDir });
  startDaemon('kube-apiserver', join(binDir, 'kube-apiserver'), apiserverArgs(stateDir, ports, pki, kubeletClient), {
    stateDir,
  });
  const kcmArgs = controllerManagerArgs(stateDir, ports, pki, kcmKubeconfig);
  startDaemon('kube-controller-manager', join(binDir, 'kube-controller-manager'), kcmArgs, { stateDir });
  startNodeAgent(stateDir, kubeconfig, opts.podSubnet);

  await waitFor('kube-apiserver /readyz', 120_000, async () => {
    assertRunning(stateDir, ['etcd', 'kube-apiserver']);
    return httpsOk(`${server}/readyz`, pki.caCert);
  });
  log(`cluster: kube-apiserver ready at ${server} after ${elapsed()}`);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  await applyDefaults(kc);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await waitFor(`node ${NODE_NAME} Ready`, 60_000, async () => {
    assertRunning(stateDir, ['node-agent']);
    const node = await core.readNode({ name: NODE_NAME });
    return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
  });
  log(`cluster: node ${NODE_NAME} Ready after ${elapsed()}`);
  // Pods are refused until the ServiceAccount controller made the namespace's `default` account.
  await waitFor('ServiceAccount default/default', 60_000, async () => {
    assertRunning(stateDir, ['kube-controller-manager']);
    return (await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })) ? true : undefined;
  });
  assertRunning(stateDir, ['etcd', 'kube-apiserver', 'kube-controller-manager', 'node-agent']);
  const info: ClusterInfo = { stateDir, podSubnet: opts.podSubnet, server, kubeconfig, caFile: pki.caCert, binDir };
  writeFileSync(join(stateDir, 'cluster.json'), JSON.stringify(info, null, 2));
  log(`cluster: up in ${elapsed()} (binaries checked before)`);
  return info;
}

function assertRunning(stateDir: string, names: string[]): void {
  for (const name of names) {
    if (!isAlive(readPid(stateDir, name) ?? -1)) {
      throw new GaveUp(`${name} exited during start-up; see ${join(stateDir, 'logs', `${name}.log`)}`);
    }
  }
}

function startNodeAgent(stateDir: string, kubeconfig: string, podSubnet: string): number {
  return startDaemon('node-agent', process.execPath, ['--import', 'tsx', join(clusterDir, 'node-agent.ts')], {
    stateDir,
    cwd: repoRoot,
    env: {
      KUBECONFIG: kubeconfig,
      SVC_AGENT_NODE_NAME: NODE_NAME,
      SVC_AGENT_POD_SUBNET: podSubnet,
      SVC_AGENT_STATE_DIR: join(stateDir, 'node'),
      // Short crash-loop back-off, so tests see restarts in seconds rather than minutes.
      SVC_AGENT_BACKOFF_MS: process.env.SVC_AGENT_BACKOFF_MS ?? '2000',
      SVC_AGENT_BACKOFF_MAX_MS: process.env.SVC_AGENT_BACKOFF_MAX_MS ?? '20000',
    },
  });
}

/**
 * Kills the node agent outright (SIGKILL, its pods' processes left behind as after a crash) and
 * starts a new one, which must converge from the API server's state alone.
 */
export async function restartNodeAgent(stateDir: string): Promise<number> {
  const info = JSON.parse(readFileSync(join(stateDir, 'cluster.json'), 'utf8')) as ClusterInfo;
  const pid = readPid(stateDir, 'node-agent');
  if (pid !== undefined && isAlive(pid)) {
    process.kill(pid, 'SIGKILL');
    await waitFor('old node agent gone', 10_000, async () => (isAlive(pid) ? undefined : true));
  }
  return startNodeAgent(stateDir, info.kubeconfig, info.podSubnet);
}

/** Cluster-wide objects every test cluster has: the default StorageClass. */
async function applyDefaults(kc: k8s.KubeConfig): Promise<void> {
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const storageClass: k8s.V1StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: 'standard',
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
  await objects.patch(storageClass, undefined, undefined, 'svc-test-cluster', true, k8s.PatchStrategy.ServerSideApply);
}

/** Stops every process of the cluster at `stateDir` and removes the state dir. */
export async function stopCluster(stateDir: string, log: (line: string) => void = () => {}): Promise<void> {
  const volumes = await provisionedVolumeDirs(stateDir);
  // A real node joined by node/node.sh goes first, while the API server can still delete its pods.
  if (existsSync(join(stateDir, 'real-node'))) {
    execFileSync('bash', [join(clusterDir, 'node', 'node.sh'), 'down'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, SVC_CLUSTER_STATE: stateDir },
    });
    log('cluster: real node stopped');
  }
  // The agent first, so it can stop its pods; then the control plane, top down.
  for (const name of ['node-agent', 'kube-controller-manager', 'kube-apiserver', 'etcd']) {
    const pid = readPid(stateDir, name);
    if (pid !== undefined && isAlive(pid)) {
      await terminate([pid], 15_000);
      log(`cluster: stopped ${name} (pid ${pid})`);
    }
  }
  // Whatever is left and carries the cluster's marker (pods whose agent died, for instance).
  const leftovers = markedProcesses(stateDir);
  if (leftovers.length > 0) {
    await terminate(leftovers, 5_000);
    log(`cluster: stopped ${leftovers.length} leftover process(es)`);
  }
  // The hostPath provisioner's directories live outside the state dir; remove this cluster's.
  for (const dir of volumes) rmSync(dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
}

/** Directories of the cluster's provisioned hostPath volumes, if its API server still answers. */
async function provisionedVolumeDirs(stateDir: string): Promise<string[]> {
  const kubeconfig = join(stateDir, 'admin.kubeconfig');
  if (!existsSync(kubeconfig) || !isAlive(readPid(stateDir, 'kube-apiserver') ?? -1)) return [];
  try {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const list = await kc.makeApiClient(k8s.CoreV1Api).listPersistentVolume();
    return list.items.map((pv) => pv.spec?.hostPath?.path ?? '').filter((path) => path.startsWith('/tmp/hostpath_pv/'));
  } catch {
    return [];
  }
}
