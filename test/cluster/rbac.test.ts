// RBAC is enforced: a ServiceAccount gets exactly what its Role grants, so tests that run the
// product's runner with its chart's Role prove that Role is enough. Also checks that the kubeconfig
// files work for kubectl, as they will for a person.
import { execFileSync, spawnSync } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminConfig,
  adminKubeconfigPath,
  createNamespace,
  deleteNamespace,
  serviceAccountAccess,
  statusOf,
} from './helpers.js';

describe('RBAC', () => {
  const admin = adminConfig();
  let namespace = '';
  let other = '';

  beforeAll(async () => {
    namespace = await createNamespace(admin, 'rbac');
    other = await createNamespace(admin, 'rbac-other');
  });
  afterAll(async () => {
    await deleteNamespace(admin, namespace);
    await deleteNamespace(admin, other);
  });

  it('gives a ServiceAccount without a Role 403', async () => {
    const { kubeconfig } = await serviceAccountAccess(admin, { namespace, name: 'nobody' });
    const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
    expect(await statusOf(core.listNamespacedPod({ namespace }))).toBe(403);
    expect(await statusOf(core.listNamespacedConfigMap({ namespace }))).toBe(403);
  });

  it('gives a ServiceAccount what its Role grants and nothing more', async () => {
    const { kubeconfig, kubeconfigPath } = await serviceAccountAccess(admin, {
      namespace,
      name: 'pod-reader',
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
    });
    const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
    const apps = kubeconfig.makeApiClient(k8s.AppsV1Api);
    expect(await statusOf(core.listNamespacedPod({ namespace }))).toBeUndefined();
    expect(await statusOf(core.listNamespacedPod({ namespace: other }))).toBe(403);
    expect(await statusOf(core.listNamespacedSecret({ namespace }))).toBe(403);
    expect(await statusOf(apps.listNamespacedStatefulSet({ namespace }))).toBe(403);
    const cm = { metadata: { name: 'x' }, data: { a: 'b' } };
    expect(await statusOf(core.createNamespacedConfigMap({ namespace, body: cm }))).toBe(403);

    // The same account through kubectl and the kubeconfig file.
    const allowed = spawnSync('kubectl', ['--kubeconfig', kubeconfigPath, 'get', 'pods', '-n', namespace], {
      encoding: 'utf8',
    });
    expect(allowed.status).toBe(0);
    const denied = spawnSync('kubectl', ['--kubeconfig', kubeconfigPath, 'get', 'secrets', '-n', namespace], {
      encoding: 'utf8',
    });
    expect(denied.status).not.toBe(0);
    expect(denied.stderr).toContain('forbidden');
  });

  it('binds an existing ClusterRole within the namespace only', async () => {
    const { kubeconfig } = await serviceAccountAccess(admin, {
      namespace,
      name: 'viewer',
      roleRef: { kind: 'ClusterRole', name: 'view' },
    });
    const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
    expect(await statusOf(core.listNamespacedConfigMap({ namespace }))).toBeUndefined();
    expect(await statusOf(core.listNamespacedConfigMap({ namespace: other }))).toBe(403);
    expect(await statusOf(core.listNamespacedSecret({ namespace }))).toBe(403);
  });

  it('lets the admin see the Ready node and all pods with kubectl', () => {
    const kubectl = (...args: string[]) =>
      execFileSync('kubectl', ['--kubeconfig', adminKubeconfigPath(), ...args], { encoding: 'utf8' });
    expect(kubectl('get', 'nodes')).toMatch(/svc-test-node\s+Ready/);
    expect(kubectl('get', 'pods', '-A')).toBeDefined();
    expect(kubectl('auth', 'can-i', '*', '*')).toContain('yes');
  });
});
