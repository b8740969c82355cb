import * as k8s from '@kubernetes/client-node';
import { createNamespace, deleteNamespace } from '../cluster/helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chartRunnerRules,
  client,
  DEFAULT_TEMPLATE,
  type Json,
  objectsOf,
  type RunnerWorld,
  startRunner,
  startWorld,
} from './harness.js';

// Issue 6: every fatal error the test cluster can produce ends in the right deployment_error and
// Stopped, with no StatefulSet, Service, ConfigMap or pod left behind. The runner here allows custom
// templates (each case brings its own) and gives up on an unschedulable pod after 2 s.

let world: RunnerWorld;
beforeAll(async () => {
  world = await startWorld('runner-fail');
  await startRunner(world, ['--allow-custom-pipeline-template', '--unschedulable-grace-secs', '2']);
});
afterAll(async () => world?.close());

/** The default template with one edit: the way a user would write a custom one. */
const edited = (from: string, to: string): string => {
  if (!DEFAULT_TEMPLATE.includes(from)) throw new Error(`the default template has no ${from}`);
  return DEFAULT_TEMPLATE.replace(from, to);
};
const IMAGE = "image: '{pipeline_executor_image}'";
const NEVER_READY = `image: svc-test/node
          command: [node, -e, 'setInterval(() => {}, 1000)']`;

interface Case {
  name: string;
  template?: string;
  configMap?: string;
  runtime?: Json;
  expectError: (error: Json) => void;
}

const cases: Case[] = [
  {
    name: 'unknown-image',
    template: edited(IMAGE, 'image: svc-test/no-such-image:1'),
    expectError: (e) => {
      expect(e['error_code']).toBe('ResourceError');
      expect(['ErrImagePull', 'ImagePullBackOff']).toContain((e['details'] as Json)['reason']);
    },
  },
  {
    name: 'crashing',
    template: edited(IMAGE, 'image: svc-test/exit-at-once'),
    expectError: (e) => {
      expect(e['details']).toMatchObject({ kind: 'Pod', reason: 'CrashLoopBackOff' });
      expect(String((e['details'] as Json)['message'])).toContain('exit code 3');
    },
  },
  {
    name: 'unschedulable',
    template: edited('      containers:', '      nodeSelector:\n        disk: ssd\n      containers:'),
    expectError: (e) => expect(e['details']).toMatchObject({ kind: 'Pod', reason: 'Unschedulable' }),
  },
  {
    name: 'missing-configmap',
    configMap: 'no-such-configmap',
    expectError: (e) => {
      expect(e['error_code']).toBe('TemplateError');
      expect(e['details']).toMatchObject({ config_map: 'no-such-configmap', key: 'pipelineTemplate' });
    },
  },
  {
    name: 'bad-yaml',
    template: 'apiVersion: apps/v1\nkind: StatefulSet\nspec:\n  replicas: [1\n',
    expectError: (e) => {
      expect(e['error_code']).toBe('TemplateError');
      expect((e['details'] as Json)['line']).toEqual(expect.any(Number));
    },
  },
  {
    name: 'deployment',
    template: DEFAULT_TEMPLATE.replace('kind: StatefulSet', 'kind: Deployment'),
    expectError: (e) => {
      expect(e['error_code']).toBe('TemplateError');
      expect(String(e['message'])).toContain('StatefulSet');
    },
  },
  {
    name: 'timeout',
    template: edited(IMAGE, NEVER_READY),
    runtime: { provisioning_timeout_secs: 5 },
    expectError: (e) => expect(e['error_code']).toBe('ProvisioningTimeout'),
  },
];

describe('kubernetes runner: fatal errors', { timeout: 600_000 }, () => {
  it('each failure sets deployment_error, goes back to Stopped and leaves nothing running', async () => {
    const api = client(world);
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const ids = new Map<string, string>();
    for (const c of cases) {
      const configMap = c.configMap ?? `tpl-${c.name}`;
      if (c.template !== undefined) {
        await core.createNamespacedConfigMap({
          namespace: world.namespace,
          body: { metadata: { name: configMap }, data: { pipelineTemplate: c.template } },
        });
      }
      const created = await api.create(c.name, { pipeline_template_configmap: { name: configMap }, ...c.runtime });
      ids.set(c.name, String(created['id']));
    }
    // All at once: one failure must not hold up another.
    for (const c of cases) expect((await api.call('POST', `/v0/pipelines/${c.name}/start`)).status).toBe(202);
    for (const c of cases) {
      const record = await api.until(
        c.name,
        (p) => p['deployment_status'] === 'Stopped' && p['deployment_error'] != null,
        180_000,
      );
      c.expectError(record['deployment_error'] as Json);
      expect(record['deployment_desired_status']).toBe('Stopped');
      const left = await objectsOf(world, ids.get(c.name) ?? '');
      expect(
        [left.statefulSets, left.pods, left.services, left.configMaps].map((l) => l.length),
        c.name,
      ).toEqual([0, 0, 0, 0]);
    }
  });

  it('honours a custom template when allowed', async () => {
    const api = client(world);
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: world.namespace,
      body: {
        metadata: { name: 'tpl-custom' },
        data: {
          custom: edited('  serviceName:', '  minReadySeconds: 0\n  serviceName:').replace(
            'metadata:\n  name:',
            'metadata:\n  annotations:\n    example.com/custom: "yes"\n  name:',
          ),
        },
      },
    });
    const created = await api.create('custom', { pipeline_template_configmap: { name: 'tpl-custom', key: 'custom' } });
    expect((await api.call('POST', '/v0/pipelines/custom/start')).status).toBe(202);
    await api.until('custom', (p) => p['deployment_status'] === 'Running');
    const [sts] = (await objectsOf(world, String(created['id']))).statefulSets;
    expect(sts?.metadata?.annotations?.['example.com/custom']).toBe('yes');
    expect((await api.call('POST', '/v0/pipelines/custom/stop?force=true')).status).toBe(202);
    await api.until('custom', (p) => p['deployment_status'] === 'Stopped');
  });

  it('runs a pipeline in the namespace of resources.namespace (with the Role granted there)', async () => {
    const api = client(world);
    const other = await createNamespace(world.admin, 'runner-other');
    try {
      const rbac = world.admin.makeApiClient(k8s.RbacAuthorizationV1Api);
      await rbac.createNamespacedRole({
        namespace: other,
        body: { metadata: { name: 'svc-runner' }, rules: chartRunnerRules() },
      });
      await rbac.createNamespacedRoleBinding({
        namespace: other,
        body: {
          metadata: { name: 'svc-runner' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'svc-runner' },
          subjects: [{ kind: 'ServiceAccount', name: 'svc-runner', namespace: world.namespace }],
        },
      });
      const created = await api.create('elsewhere', { resources: { namespace: other } });
      expect((await api.call('POST', '/v0/pipelines/elsewhere/start')).status).toBe(202);
      await api.until('elsewhere', (p) => p['deployment_status'] === 'Running');
      const apps = world.admin.makeApiClient(k8s.AppsV1Api);
      const sts = await apps.readNamespacedStatefulSet({ name: `pipeline-${String(created['id'])}`, namespace: other });
      expect(sts.metadata?.namespace).toBe(other);
      expect((await api.call('POST', '/v0/pipelines/elsewhere/stop?force=true')).status).toBe(202);
      await api.until('elsewhere', (p) => p['deployment_status'] === 'Stopped');
      expect((await api.call('POST', '/v0/pipelines/elsewhere/clear')).status).toBe(202);
      await api.until('elsewhere', (p) => p['storage_status'] === 'Cleared');
    } finally {
      await deleteNamespace(world.admin, other);
    }
  });

  it('replaces a StatefulSet whose immutable fields differ (left by an older template or runner)', async () => {
    const api = client(world);
    const created = await api.create('immutable');
    const id = String(created['id']);
    const name = `pipeline-${id}`;
    const labels = { 'app.kubernetes.io/name': 'svc-pipeline', 'svc/pipeline-id': id };
    // Same name, another serviceName and claim template: both immutable once created.
    const apps = world.admin.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedStatefulSet({
      namespace: world.namespace,
      body: {
        metadata: { name, labels: { ...labels, 'app.kubernetes.io/managed-by': 'svc-runner' } },
        spec: {
          replicas: 0,
          serviceName: 'old-service',
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'pipeline', image: 'svc-test/node' }] } },
        },
      },
    });
    const oldUid = (await apps.readNamespacedStatefulSet({ name, namespace: world.namespace })).metadata?.uid;
    expect((await api.call('POST', '/v0/pipelines/immutable/start')).status).toBe(202);
    await api.until('immutable', (p) => p['deployment_status'] === 'Running');
    const sts = await apps.readNamespacedStatefulSet({ name, namespace: world.namespace });
    expect(sts.metadata?.uid).not.toBe(oldUid);
    expect(sts.spec?.serviceName).toBe(name);
    expect((await api.call('POST', '/v0/pipelines/immutable/stop?force=true')).status).toBe(202);
    await api.until('immutable', (p) => p['deployment_status'] === 'Stopped');
  });
});
