import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { byKind, render, repoRoot } from '../test/chart/helm.js';
import { type ClusterInfo, startCluster, stopCluster } from '../test/cluster/control-plane/cluster.js';
import { readPid } from '../test/cluster/control-plane/processes.js';
import { message, type SvcProcess, startSvc } from '../test/support/svc-process.js';
import type { Cleanup } from './common.js';
import { say, sleep } from './common.js';
import { provideDatabase } from './database.js';

// What `npm run bench:kubernetes` runs against, set up as test/kubernetes/harness.ts sets up the
// runner tests (that file imports vitest, so its few steps are repeated here): the test cluster in
// its own state dir and pod subnet, a namespace with the default pipeline template, a ServiceAccount
// bound to the Helm chart's runner Role (rendered by helm), a throw-away PostgreSQL, and
// `svc api-server`, `svc compiler-server` and `svc runner --backend kubernetes` as child processes.

export const STATE_DIR = process.env['SVC_BENCH_CLUSTER_STATE'] ?? '/tmp/svc-test-cluster-bench';
export const POD_SUBNET = '127.12';
export const NAMESPACE = 'svc-bench';
export const STUB_IMAGE = 'svc-bench/pipeline-stub:1';

export interface World {
  cluster: ClusterInfo;
  admin: k8s.KubeConfig;
  api: string;
  runner: SvcProcess;
  /** The runner's /healthz, /readyz and /metrics. */
  runnerUrl: string;
  /** When the runner process was spawned (epoch ms). */
  runnerStartedAt: number;
  postgres: string;
  /** Pids of the control plane's daemons, by name (for their CPU). */
  daemons: Record<string, number>;
}

export async function started(
  args: string[],
  ready: string,
  cleanups: Cleanup[],
  env: Record<string, string> = {},
): Promise<{ svc: SvcProcess; url: string }> {
  const svc = startSvc(args, env);
  cleanups.push(async () => {
    if (svc.child.exitCode !== null || svc.child.signalCode !== null) return;
    svc.child.kill('SIGTERM');
    const timer = setTimeout(() => svc.child.kill('SIGKILL'), 10_000);
    await svc.exited;
    clearTimeout(timer);
  });
  const line = await svc.waitForLine((l) => message(l).startsWith(ready), 120_000);
  return { svc, url: String((line['fields'] as { url?: string }).url ?? '') };
}

/** The runner's Role as the chart renders it (test/kubernetes/harness.ts chartRunnerRules). */
function chartRunnerRules(): k8s.V1PolicyRule[] {
  const role = byKind(render(), 'Role').find(
    (r) => r.metadata.labels?.['app.kubernetes.io/component'] === 'kubernetes-runner',
  );
  if (!role) throw new Error('the chart renders no runner Role');
  return (role as unknown as { rules: k8s.V1PolicyRule[] }).rules;
}

/** ServiceAccount `svc-runner` bound to the chart's Role; returns a temp dir holding `kubeconfig` (its token). */
/**
 * A database of the bench's own, an api-server and a compiler-server on it (`compilerArgs` added to
 * the compiler's), each undone by `cleanups`. `common` is what the runner needs of the database.
 */
export async function startApiAndCompiler(cleanups: (() => Promise<void>)[], compilerArgs: readonly string[] = []) {
  const db = await provideDatabase();
  cleanups.push(() => db.dispose());
  const common = ['--database-url', db.url];
  const api = await started(['api-server', '--port', '0', ...common], 'svc manager ready at', cleanups);
  const compilerDir = mkdtempSync(join(tmpdir(), 'svc-bench-compiler-'));
  cleanups.push(async () => rmSync(compilerDir, { recursive: true, force: true }));
  const compiler = await started(
    ['compiler-server', '--port', '0', '--data-dir', compilerDir, ...compilerArgs, ...common],
    'svc compiler-server ready at',
    cleanups,
  );
  return { db, common, api, compiler };
}

export async function runnerKubeconfig(admin: k8s.KubeConfig, namespace: string): Promise<string> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  const name = 'svc-runner';
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: chartRunnerRules() } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 6 * 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!request.status?.token || !cluster) throw new Error('no token for the runner ServiceAccount');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: cluster.server, caData: cluster.caData, caFile: cluster.caFile }],
    users: [{ name: 'svc-runner', token: request.status.token }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'svc-runner', namespace }],
    currentContext: 'bench',
  });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sa-'));
  writeFileSync(join(dir, 'kubeconfig'), kc.exportConfig(), { mode: 0o600 });
  return dir;
}

export async function waitForDefaultAccount(core: k8s.CoreV1Api, namespace: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ok = await core.readNamespacedServiceAccount({ name: 'default', namespace }).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`ServiceAccount ${namespace}/default never appeared`);
}

/**
 * Pids of pod processes of other test clusters. Every node agent is node `svc-test-node` and, when it
 * starts, stops every process marked `SVC_AGENT_NODE=svc-test-node` as "left by a previous agent",
 * whichever cluster runs it: starting ours would kill their pods (and theirs kill ours).
 */
export function foreignPods(stateDir = STATE_DIR): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (env.includes('SVC_AGENT_NODE=svc-test-node') && !env.includes(`SVC_TEST_CLUSTER_STATE=${stateDir}`))
        pids.push(Number(entry));
    } catch {
      // gone, or not readable
    }
  }
  return pids;
}

/**
 * Starts everything; each piece pushes its own cleanup, so a failure half-way still tears down.
 * `profileDir`: the runner runs under `node --cpu-prof` and writes its profile there when it stops
 * (its start time is `runnerStartedAt`, for profile-summary --window). `runnerArgs` go to the runner
 * (bench/pipeline-resources.ts: --pipeline-resources).
 */
export async function startWorld(
  cleanups: Cleanup[],
  logDir: string,
  maxWaitS: number,
  profileDir?: string,
  runnerArgs: readonly string[] = [],
): Promise<World> {
  const deadline = Date.now() + maxWaitS * 1000;
  while (foreignPods().length > 0) {
    if (Date.now() > deadline)
      throw new Error(`pods of another test cluster still run (pids ${foreignPods().join(' ')})`);
    say(
      `waiting: ${foreignPods().length} pod process(es) of another test cluster run, which our node agent would kill`,
    );
    await sleep(15_000);
  }
  cleanups.push(() => stopCluster(STATE_DIR, say));
  const cluster = await startCluster({ stateDir: STATE_DIR, podSubnet: POD_SUBNET, log: say });
  // Runs before the cluster stops: keep the daemons' logs (outside the repo) for a look afterwards.
  cleanups.push(async () => {
    if (existsSync(join(STATE_DIR, 'logs'))) cpSync(join(STATE_DIR, 'logs'), logDir, { recursive: true });
  });
  const admin = new k8s.KubeConfig();
  admin.loadFromFile(cluster.kubeconfig);
  const core = admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await waitForDefaultAccount(core, NAMESPACE);
  const template = readFileSync(join(repoRoot, 'templates', 'pipeline-template.yaml'), 'utf8');
  await core.createNamespacedConfigMap({
    namespace: NAMESPACE,
    body: { metadata: { name: 'svc-pipeline-template' }, data: { pipelineTemplate: template } },
  });
  const saDir = await runnerKubeconfig(admin, NAMESPACE);
  const kubeconfig = join(saDir, 'kubeconfig');
  cleanups.push(async () => rmSync(saDir, { recursive: true, force: true }));

  const { db, common, api, compiler } = await startApiAndCompiler(cleanups);
  // The runner goes first at cleanup (cleanups run in reverse): it stops before the cluster does.
  const runnerStartedAt = Date.now();
  const runner = await started(
    [
      'runner',
      '--backend',
      'kubernetes',
      ...common,
      '--compiler-url',
      compiler.url,
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      NAMESPACE,
      '--pipeline-address',
      'pod-ip',
      '--pipeline-executor-image',
      STUB_IMAGE,
      '--port',
      '0',
      ...runnerArgs,
    ],
    'svc runner ready',
    cleanups,
    profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {},
  );
  cleanups.push(async () => writeFileSync(join(logDir, 'runner.log'), runner.svc.stdout()));
  const daemons: Record<string, number> = {};
  for (const name of ['kube-apiserver', 'etcd', 'kube-controller-manager', 'node-agent']) {
    const pid = readPid(STATE_DIR, name);
    if (pid !== undefined) daemons[name] = pid;
  }
  return {
    cluster,
    admin,
    api: api.url,
    runner: runner.svc,
    runnerUrl: runner.url,
    runnerStartedAt,
    postgres: `${db.serverVersion} (${db.where})`,
    daemons,
  };
}
