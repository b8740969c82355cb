// Chart tests against the test cluster: helm and kubectl as the cluster's admin, the release's pods,
// and the svc API reached at a pod address (no kube-proxy, no DNS in the test cluster).
import { spawnSync } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { freePort } from '../cluster/control-plane/processes.js';
import { adminKubeconfigPath, waitFor } from '../cluster/helpers.js';
import { httpsRequest } from '../support/https-request.js';
import { chartDir, runHelm, type RunResult } from './helm.js';

/** helm with the test cluster's admin kubeconfig; throws with helm's output when it fails. */
export function helmOk(args: readonly string[]): RunResult {
  const r = runHelm(args, { KUBECONFIG: adminKubeconfigPath() });
  if (r.status !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

export function kubectl(args: readonly string[], input?: string): RunResult {
  const r = spawnSync('kubectl', ['--kubeconfig', adminKubeconfigPath(), ...args], {
    encoding: 'utf8',
    input,
    maxBuffer: 64 << 20,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const isReady = (pod: k8s.V1Pod): boolean =>
  pod.metadata?.deletionTimestamp === undefined &&
  (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * Waits for exactly one Ready pod of the release's component (no other pod of it left) that `accept`
 * takes, and returns it. `state: 'running'` asks only for a running container with a pod IP.
 */
export async function readyPod(
  kc: k8s.KubeConfig,
  namespace: string,
  release: string,
  component: string,
  accept: (pod: k8s.V1Pod) => boolean = () => true,
  state: 'ready' | 'running' = 'ready',
): Promise<k8s.V1Pod> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const labelSelector = `app.kubernetes.io/instance=${release},app.kubernetes.io/component=${component}`;
  const inState = (pod: k8s.V1Pod) =>
    state === 'ready' ? isReady(pod) : pod.status?.phase === 'Running' && pod.status.podIP !== undefined;
  return waitFor(`one ${state} ${component} pod of release ${release}`, 240_000, async () => {
    const pods = (await core.listNamespacedPod({ namespace, labelSelector })).items;
    const [pod, ...others] = pods;
    return pod && others.length === 0 && inState(pod) && accept(pod) ? pod : undefined;
  });
}

export function podIP(pod: k8s.V1Pod): string {
  const ip = pod.status?.podIP;
  if (!ip) throw new Error(`pod ${pod.metadata?.name} has no IP`);
  return ip;
}

export async function secretValue(kc: k8s.KubeConfig, namespace: string, name: string, key: string): Promise<string> {
  const secret = await kc.makeApiClient(k8s.CoreV1Api).readNamespacedSecret({ name, namespace });
  const value = secret.data?.[key];
  if (value === undefined) throw new Error(`Secret ${name} has no key ${key}`);
  return Buffer.from(value, 'base64').toString('utf8');
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/**
 * A call to the svc API of a pod (port 8080 unless given). With `ca`, over HTTPS trusting that
 * certificate only (any host name: the pod IP is not known when the certificate is made).
 */
export async function api(
  base: string,
  path: string,
  init: { method?: string; key?: string; body?: unknown; ca?: Buffer | string } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (init.key) headers['authorization'] = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const method = init.method ?? 'GET';
  const sent = init.body === undefined ? undefined : JSON.stringify(init.body);
  const res = init.ca
    ? await httpsRequest(`${base}${path}`, { ca: init.ca, method, headers, body: sent, anyHostName: true })
    : await fetch(`${base}${path}`, { method, headers, body: sent }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      }));
  const text = res.text;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/** A kubeconfig for the chart's runner ServiceAccount (a TokenRequest token, the admin's server and CA). */
export async function runnerKubeconfig(admin: k8s.KubeConfig, namespace: string, release: string): Promise<string> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const name = `${release}-svc-runner`;
  const token = (
    await core.createNamespacedServiceAccountToken({
      name,
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    })
  ).status?.token;
  const cluster = admin.getCurrentCluster();
  if (!token || !cluster) throw new Error('no token or no cluster');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: cluster.server, caData: cluster.caData }],
    users: [{ name, token }],
    contexts: [{ name: 'test', cluster: 'test', user: name, namespace }],
    currentContext: 'test',
  });
  return kc.exportConfig();
}

/** A release installed on the test cluster, reached at its api-server pod. */
export interface InstalledRelease {
  base: string;
  key: string;
  /** What `helm install` printed (the chart's NOTES). */
  notes: string;
}

/**
 * `helm install` of the split control plane as the test cluster allows it (no DNS, no kube-proxy, no
 * service-account token files in pods): the database at 127.0.0.1:<free port>, pipelines at their pod
 * IP, the runner with a kubeconfig holding a token of the chart's runner ServiceAccount (so it has the
 * chart's Role and nothing more), and the compiler-server at its pod IP (a `helm upgrade` once the pod
 * has one). `set` adds the test's own values.
 */
export async function installRelease(
  admin: k8s.KubeConfig,
  namespace: string,
  release: string,
  set: readonly string[],
): Promise<InstalledRelease> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const pgPort = await freePort();
  const values = [
    'postgresql.host=127.0.0.1',
    `postgresql.port=${pgPort}`,
    'kubernetesRunner.pipelineAddress=pod-ip',
    `kubernetesRunner.kubeconfigSecret.name=${release}-runner-kubeconfig`,
    ...set,
  ].join(',');
  const notes = helmOk(['install', release, chartDir, '--namespace', namespace, '--set', values]).stdout;
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: `${release}-runner-kubeconfig` },
      stringData: { kubeconfig: await runnerKubeconfig(admin, namespace, release) },
    },
  });
  const compiler = await readyPod(admin, namespace, release, 'compiler-server', () => true, 'ready');
  const compilerUrl = `compilerServer.url=http://${podIP(compiler)}:8085`;
  helmOk(['upgrade', release, chartDir, '--namespace', namespace, '--reuse-values', '--set', compilerUrl]);
  await readyPod(
    admin,
    namespace,
    release,
    'kubernetes-runner',
    (p) => p.spec?.containers[0]?.env?.some((e) => e.value?.includes(podIP(compiler))) ?? false,
  );
  const apiServer = await readyPod(admin, namespace, release, 'api-server');
  const scheme = set.some((v) => /^https\.secretRef=./.test(v)) ? 'https' : 'http';
  return {
    notes,
    base: `${scheme}://${podIP(apiServer)}:8080`,
    key: await secretValue(admin, namespace, `${release}-svc-api-key`, 'api-key'),
  };
}
