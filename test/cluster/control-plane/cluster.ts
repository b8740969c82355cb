// Starts and stops the whole test cluster: etcd, kube-apiserver, kube-controller-manager and the
// node agent, each a detached daemon with a pid file under the state dir (outside the repo).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { writeKubeconfig } from './kubeconfig.js';
import { makeClientCert, makePki } from './pki.js';
import { freePort, isAlive, markedProcesses, readPid, startDaemon, terminate, waitFor } from './processes.js';

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
  const started = Date.now();
  const { stateDir } = opts;
  if (existsSync(stateDir)) await stopCluster(stateDir, log);
  const binDir = buildBinaries();
  const t0 = Date.now();
  mkdirSync(stateDir, { recursive: true });
  const pki = makePki(join(stateDir, 'pki'));
  const admin = makeClientCert(pki, 'admin', 'svc-admin', ['system:masters']);
  const kcm = makeClientCert(pki, 'kcm', 'system:kube-controller-manager', []);
  const [etcdPort, peerPort, apiPort, kcmPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const server = `https://127.0.0.1:${apiPort}`;

  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  startDaemon(
    'etcd',
    join(binDir, 'etcd'),
    [
      '--name=default',
      `--data-dir=${join(stateDir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      // A throwaway cluster: durability is not worth the fsync latency.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    { stateDir },
  );

  startDaemon(
    'kube-apiserver',
    join(binDir, 'kube-apiserver'),
    [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(stateDir, 'apiserver')}`,
      `--tls-cert-file=${pki.serverCert}`,
      `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      '--authorization-mode=Node,RBAC',
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      // Only an allocation range for Service objects: nothing routes to it here.
      '--service-cluster-ip-range=10.96.0.0/16',
      // The default reconciler would publish 127.0.0.1 as the `kubernetes` Service's endpoint,
      // which endpoint validation rejects (loopback), logging errors forever.
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      '--profiling=false',
      '--v=1',
    ],
    { stateDir },
  );

  await waitFor('kube-apiserver /readyz', 120_000, async () => {
    if (!isAlive(readPid(stateDir, 'kube-apiserver') ?? -1)) throw new Error('kube-apiserver exited; see logs');
    return httpsOk(`${server}/readyz`, pki.caCert);
  });
  log(`cluster: kube-apiserver ready at ${server}`);

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

  startDaemon(
    'kube-controller-manager',
    join(binDir, 'kube-controller-manager'),
    [
      `--kubeconfig=${kcmKubeconfig}`,
      `--authentication-kubeconfig=${kcmKubeconfig}`,
      `--authorization-kubeconfig=${kcmKubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      `--cert-dir=${join(stateDir, 'kcm')}`,
      '--controllers=*,-node-lifecycle-controller',
      '--enable-hostpath-provisioner',
      `--root-ca-file=${pki.caCert}`,
      `--service-account-private-key-file=${pki.saKey}`,
      '--use-service-account-credentials',
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--leader-elect=false',
      '--profiling=false',
      '--v=1',
    ],
    { stateDir },
  );

  startNodeAgent(stateDir, kubeconfig, opts.podSubnet);

  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  await applyDefaults(kc);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await waitFor(`node ${NODE_NAME} Ready`, 60_000, async () => {
    if (!isAlive(readPid(stateDir, 'node-agent') ?? -1)) throw new Error('node agent exited; see logs');
    const node = await core.readNode({ name: NODE_NAME });
    return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
  });
  // Pods are refused until the ServiceAccount controller made the namespace's `default` account.
  await waitFor('ServiceAccount default/default', 60_000, async () => {
    if (!isAlive(readPid(stateDir, 'kube-controller-manager') ?? -1)) throw new Error('kcm exited; see logs');
    return (await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })) ? true : undefined;
  });
  for (const name of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'node-agent']) {
    if (!isAlive(readPid(stateDir, name) ?? -1))
      throw new Error(`${name} exited during start-up; see ${join(stateDir, 'logs')}`);
  }
  const info: ClusterInfo = { stateDir, podSubnet: opts.podSubnet, server, kubeconfig, caFile: pki.caCert, binDir };
  writeFileSync(join(stateDir, 'cluster.json'), JSON.stringify(info, null, 2));
  log(
    `cluster: up in ${((Date.now() - t0) / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(1)} s with build check)`,
  );
  return info;
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
  rmSync(stateDir, { recursive: true, force: true });
}
