// Helpers for tests against the test cluster: the admin's client, throwaway namespaces, and
// ServiceAccounts bound to exactly one Role with a kubeconfig of their own (the product's runner
// runs with its Helm chart's Role only, and the tests prove that Role suffices).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { inject } from 'vitest';
import { GaveUp, waitFor } from './control-plane/processes.js';

export { GaveUp, waitFor };

/** The admin (system:masters) kubeconfig of the cluster the global setup started. */
export function adminKubeconfigPath(): string {
  return inject('kubeconfig');
}

export function adminConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(adminKubeconfigPath());
  return kc;
}

/** Creates a namespace with a fresh name and waits for its `default` ServiceAccount (pods need it). */
export async function createNamespace(kc: k8s.KubeConfig, prefix: string): Promise<string> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name } } });
  await waitFor(`ServiceAccount ${name}/default`, 60_000, async () =>
    (await core.readNamespacedServiceAccount({ name: 'default', namespace: name })) ? true : undefined,
  );
  return name;
}

export async function deleteNamespace(kc: k8s.KubeConfig, name: string): Promise<void> {
  await kc
    .makeApiClient(k8s.CoreV1Api)
    .deleteNamespace({ name })
    .catch(() => undefined);
}

export interface ServiceAccountOptions {
  namespace: string;
  name: string;
  /** Rules of a Role created for the account (named like it) and bound to it. */
  rules?: k8s.V1PolicyRule[];
  /** An existing Role or ClusterRole to bind instead (e.g. the Helm chart's Role, applied first). */
  roleRef?: { kind: 'Role' | 'ClusterRole'; name: string };
}

export interface ServiceAccountAccess {
  kubeconfigPath: string;
  kubeconfig: k8s.KubeConfig;
}

/**
 * Creates a ServiceAccount bound (in its namespace) to a new Role with `rules`, or to `roleRef`,
 * or to nothing, and returns a kubeconfig that authenticates as the account with a bound token from the TokenRequest API.
 */
export async function serviceAccountAccess(
  admin: k8s.KubeConfig,
  opts: ServiceAccountOptions,
): Promise<ServiceAccountAccess> {
  const { namespace, name } = opts;
  const core = admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  if (opts.rules) await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: opts.rules } });
  const roleRef = opts.roleRef ?? (opts.rules ? { kind: 'Role', name } : undefined);
  if (roleRef) {
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
  }
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`no token issued for ServiceAccount ${namespace}/${name}`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('admin kubeconfig has no current cluster');
  const kubeconfig = new k8s.KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [{ name: 'svc-test', server: cluster.server, caData: cluster.caData }],
    users: [{ name: `${namespace}-${name}`, token }],
    contexts: [{ name: 'svc-test', cluster: 'svc-test', user: `${namespace}-${name}`, namespace }],
    currentContext: 'svc-test',
  });
  const kubeconfigPath = join(mkdtempSync(join(tmpdir(), 'svc-sa-')), 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig.exportConfig(), { mode: 0o600 });
  return { kubeconfigPath, kubeconfig };
}

/** The HTTP status of a failed API call, or undefined when it succeeded. */
export async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    if (err instanceof k8s.ApiException) return err.code;
    throw err;
  }
}

/** Polls the pod until `check` returns something; for waits that can take a while (generous time-out). */
export async function waitForPod<T>(
  kc: k8s.KubeConfig,
  namespace: string,
  name: string,
  what: string,
  check: (pod: k8s.V1Pod) => T | undefined,
  timeoutMs = 90_000,
): Promise<T> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  return waitFor(`pod ${namespace}/${name}: ${what}`, timeoutMs, async () =>
    check(await core.readNamespacedPod({ name, namespace })),
  );
}

export async function isGone(call: Promise<unknown>): Promise<true | undefined> {
  return (await statusOf(call)) === 404 ? true : undefined;
}
