// The Kubernetes runner under test, as users run it: `svc api-server`, `svc compiler-server` and
// `svc runner --backend kubernetes` as separate processes on one real PostgreSQL, the runner
// authenticated as a ServiceAccount bound only to the Helm chart's Role, pipelines run by the test
// cluster's node agent as real `svc pipeline` processes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'vitest';
import { byKind, render, repoRoot } from '../chart/helm.js';
import { openBackend } from '../support/api-harness.js';
import { message, startSvc, type SvcProcess } from '../support/svc-process.js';
import { adminConfig, createNamespace, deleteNamespace, serviceAccountAccess } from '../cluster/helpers.js';

export type Json = Record<string, unknown>;

export interface RunnerWorld {
  admin: k8s.KubeConfig;
  /** Empty until a component serves it (see startWorld's `components`). */
  namespace: string;
  runnerKubeconfig: string;
  api: string;
  compilerUrl: string;
  databaseUrl: string;
  procs: SvcProcess[];
  close(): Promise<void>;
}

/** The Role the chart gives the runner (rendered by Helm, so the test uses exactly the chart's rules). */
export function chartRunnerRules(): k8s.V1PolicyRule[] {
  const roles = byKind(render(), 'Role');
  const role = roles.find((r) => r.metadata.labels?.['app.kubernetes.io/component'] === 'kubernetes-runner');
  if (!role) throw new Error('the chart renders no runner Role');
  return (role as unknown as { rules: k8s.V1PolicyRule[] }).rules;
}

export const DEFAULT_TEMPLATE = readFileSync(join(repoRoot, 'templates', 'pipeline-template.yaml'), 'utf8');

async function started(procs: SvcProcess[], args: string[], ready: string): Promise<{ svc: SvcProcess; url: string }> {
  const svc = startSvc(args);
  procs.push(svc);
  const line = await svc.waitForLine((l) => message(l).startsWith(ready), 90_000);
  return { svc, url: String((line['fields'] as { url?: string }).url ?? '') };
}

/** A namespace with the default template and the runner's ServiceAccount; with `components`, also
 * `svc api-server` and `svc compiler-server` on a fresh PostgreSQL database. `compilerArgs` go to the
 * compiler server (the real node's pods reach it with `--bind-address` on the node's bridge). */
export async function startWorld(prefix: string, components = true, compilerArgs: string[] = []): Promise<RunnerWorld> {
  const admin = adminConfig();
  const namespace = await createNamespace(admin, prefix);
  const core = admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'svc-pipeline-template' }, data: { pipelineTemplate: DEFAULT_TEMPLATE } },
  });
  const access = await serviceAccountAccess(admin, { namespace, name: 'svc-runner', rules: chartRunnerRules() });
  const { url, drop, db } = await openBackend('postgres');
  await db.close();
  const databaseUrl = url ?? '';
  const procs: SvcProcess[] = [];
  const common = ['--database-url', databaseUrl];
  const api = components
    ? await started(procs, ['api-server', '--port', '0', ...common], 'svc manager ready at')
    : undefined;
  const compiler = components
    ? await started(
        procs,
        [
          'compiler-server',
          '--port',
          '0',
          '--data-dir',
          mkdtempSync(join(tmpdir(), 'svc-compiler-')),
          ...common,
          ...compilerArgs,
        ],
        'svc compiler-server ready at',
      )
    : undefined;
  return {
    admin,
    namespace,
    runnerKubeconfig: access.kubeconfigPath,
    api: api?.url ?? '',
    compilerUrl: compiler?.url ?? '',
    databaseUrl,
    procs,
    async close() {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await deleteNamespace(admin, namespace);
      await drop().catch(() => undefined);
    },
  };
}

/** The runner's cluster flags as the tests use them: the chart's RBAC, pod IPs (no cluster DNS), svc's image. */
export function kubernetesArgs(world: RunnerWorld): string[] {
  return [
    '--kubeconfig',
    world.runnerKubeconfig,
    '--namespace',
    world.namespace,
    '--pipeline-address',
    'pod-ip',
    '--pipeline-executor-image',
    'svc/svc:test',
  ];
}

/** `svc runner --backend kubernetes` with the chart's RBAC; resolves once it is ready. */
export async function startRunner(
  world: RunnerWorld,
  extra: string[] = [],
  ready = 'svc runner ready',
): Promise<SvcProcess> {
  const svc = startSvc([
    'runner',
    '--backend',
    'kubernetes',
    '--database-url',
    world.databaseUrl,
    '--compiler-url',
    world.compilerUrl,
    ...kubernetesArgs(world),
    '--port',
    '0',
    ...extra,
  ]);
  world.procs.push(svc);
  await svc.waitForLine((l) => message(l).startsWith(ready), 90_000);
  return svc;
}

export function client(world: RunnerWorld) {
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${world.api}${path}`, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: ((await res.json().catch(() => ({}))) as Json) ?? {} };
  };
  const get = async (name: string) => (await call('GET', `/v0/pipelines/${name}`)).body;
  /** Polls the record until `pred` holds; the failure message shows the last record (or request error). */
  const until = async (name: string, pred: (r: Json) => boolean, timeout = 120_000): Promise<Json> => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const last: Json = await get(name).catch((error: unknown) => ({ request_failed: String(error) }));
      if (pred(last)) return last;
      if (Date.now() > deadline)
        throw new Error(`pipeline ${name} never matched in ${timeout} ms; last: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const create = async (
    name: string,
    runtimeConfig: Json = {},
    programCode = 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x FROM t;',
  ) => {
    const r = await call('POST', '/v0/pipelines', {
      name,
      program_code: programCode,
      runtime_config: runtimeConfig,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await until(name, (p) => p['program_status'] === 'Success');
    return r.body;
  };
  return { call, get, until, create };
}

/** Objects of one pipeline in the namespace, by kind (what `kubectl get -l svc/pipeline-id=…` shows). */
export async function objectsOf(world: RunnerWorld, pipelineId: string) {
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  const apps = world.admin.makeApiClient(k8s.AppsV1Api);
  const ns = world.namespace;
  const name = `pipeline-${pipelineId}`;
  const labelSelector = `svc/pipeline-id=${pipelineId}`;
  const [statefulSets, pods, pvcs, services, configMaps] = await Promise.all([
    apps.listNamespacedStatefulSet({ namespace: ns, labelSelector }),
    core.listNamespacedPod({ namespace: ns, labelSelector }),
    core.listNamespacedPersistentVolumeClaim({ namespace: ns, labelSelector }),
    core.listNamespacedService({ namespace: ns, fieldSelector: `metadata.name=${name}` }),
    core.listNamespacedConfigMap({ namespace: ns, fieldSelector: `metadata.name=${name}` }),
  ]);
  return {
    statefulSets: statefulSets.items,
    pods: pods.items,
    pvcs: pvcs.items,
    services: services.items,
    configMaps: configMaps.items,
  };
}
