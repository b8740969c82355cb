// `helm template` for the defaults and each option, with assertions on the rendered objects.
import { PIPELINE_NAMESPACE_RBAC_RULES, runnerRbacRules } from '../../src/runner/backends/kubernetes/rbac.js';
import { pipelineCrd } from '../../src/model/pipeline-crd.js';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { allowedNamespacesOf, CASES } from './cases.js';
import {
  byKind,
  envOf,
  one,
  podSpec,
  readRepoFile,
  render,
  svcContainers,
  workloads,
  type K8sObject,
  type Values,
} from './helm.js';

/** What the runner calls (src/runner/backends/kubernetes): the Role must grant exactly this. */
const pipelineResourcesOn = (values: Values) => !(values.set ?? []).includes('pipelineResources.enabled=false');

const runnerOf = (objs: K8sObject[]) =>
  svcContainers(objs).find(({ container }) => ['kubernetes-runner', 'manager'].includes(container.name))?.container;

function runnerEnv(values: Values): Map<string, string | undefined> {
  const runner = runnerOf(render(values));
  if (!runner) throw new Error('no runner container');
  return new Map([...envOf(runner)].map(([k, v]) => [k, v.value]));
}

describe.each(CASES)('helm template: $name', ({ values }) => {
  const objs = render(values);
  const allowed = allowedNamespacesOf(values);

  it('renders no cluster-scoped RBAC, one namespaced Role with exactly the runner rules', () => {
    expect(objs.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
    const roles = byKind(objs, 'Role').filter((r) => r.metadata.namespace === 'ns');
    expect(roles).toHaveLength(1);
    // The runner's own list of the calls it makes: the chart must grant exactly these.
    expect(roles[0]?.['rules']).toEqual(runnerRbacRules({ pipelineResources: pipelineResourcesOn(values) }));
    // In each further allowed namespace: the pipelines' calls only (no Lease), bound to the runner.
    const elsewhere = byKind(objs, 'Role').filter((r) => r.metadata.namespace !== 'ns');
    expect(elsewhere.map((r) => r.metadata.namespace)).toEqual(allowed);
    for (const role of elsewhere) expect(role['rules']).toEqual(PIPELINE_NAMESPACE_RBAC_RULES);
    for (const binding of byKind(objs, 'RoleBinding')) {
      expect(binding['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'rel-svc-runner', namespace: 'ns' }]);
    }
    const binding = one(objs, 'RoleBinding', 'rel-svc-runner');
    expect(binding['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rel-svc-runner' });
  });

  it('puts every object in the release namespace, but the RBAC and pipeline account of allowed ones', () => {
    const elsewhere = objs.filter((o) => o.metadata.namespace !== 'ns' && o.kind !== 'CustomResourceDefinition');
    expect(elsewhere.map((o) => `${o.metadata.namespace}/${o.kind}`).sort()).toEqual(
      allowed
        .flatMap((ns) => [`${ns}/NetworkPolicy`, `${ns}/Role`, `${ns}/RoleBinding`, `${ns}/ServiceAccount`])
        .sort(),
    );
  });

  it('ships the Pipeline CRD generated from the zod schemas, and runs its controller, unless told not to', () => {
    const on = pipelineResourcesOn(values);
    const crds = byKind(objs, 'CustomResourceDefinition');
    expect(crds).toEqual(on ? [pipelineCrd()] : []);
    expect(runnerEnv(values).get('SVC_PIPELINE_RESOURCES')).toBe(String(on));
  });

  it('runs svc containers non-root with a read-only root and probes on /healthz and /readyz', () => {
    const containers = svcContainers(objs);
    expect(containers.length).toBeGreaterThan(0);
    for (const { container } of containers) {
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(container.resources?.requests).toBeDefined();
    }
    for (const w of workloads(objs)) expect(podSpec(w).securityContext?.runAsNonRoot).toBe(true);
  });

  it('sets SVC_LOG_JSON=1 on every svc container exactly when logJson is true', () => {
    const json = (values.set ?? []).includes('logJson=true');
    for (const { owner, container } of svcContainers(objs)) {
      const env = envOf(container).get('SVC_LOG_JSON');
      expect({ owner, value: env?.value }).toEqual({ owner, value: json ? '1' : undefined });
    }
    for (const w of workloads(objs)) {
      for (const c of podSpec(w).containers)
        expect(c.env?.filter((e) => e.name === 'SVC_LOG_JSON').length ?? 0).toBeLessThan(2);
    }
  });

  it('gives pipeline pods their own ServiceAccount with no token and no RoleBinding', () => {
    const name = (values.set ?? []).includes('pipelineServiceAccount.name=pipelines')
      ? 'pipelines'
      : 'rel-svc-pipeline';
    expect(one(objs, 'ServiceAccount', name)['automountServiceAccountToken']).toBe(false);
    const subjects = byKind(objs, 'RoleBinding').flatMap((b) => (b['subjects'] as { name: string }[]) ?? []);
    expect(subjects.map((s) => s.name)).not.toContain(name);
    expect(runnerEnv(values).get('SVC_PIPELINE_SERVICE_ACCOUNT')).toBe(name);
  });

  it('admits only the control plane to pipeline pods, in every namespace pipelines run in', () => {
    const policies = byKind(objs, 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.namespace)).toEqual(['ns', ...allowed]);
    const combined = (values.set ?? []).includes('controlPlane.mode=combined');
    for (const policy of policies) {
      expect(policy['spec']).toEqual({
        podSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'svc-pipeline', 'app.kubernetes.io/managed-by': 'svc-runner' },
        },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ns' } },
                podSelector: {
                  matchLabels: { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/instance': 'rel' },
                  matchExpressions: [
                    {
                      key: 'app.kubernetes.io/component',
                      operator: 'In',
                      values: ['manager', 'api-server', 'kubernetes-runner'],
                    },
                  ],
                },
              },
            ],
            ports: [{ port: 8080, protocol: 'TCP' }],
          },
        ],
      });
    }
    // The pods that call pipelines carry the labels the policy admits.
    const callers = workloads(objs).filter((w) =>
      (combined ? ['manager'] : ['api-server', 'kubernetes-runner']).includes(
        String(
          (w['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels[
            'app.kubernetes.io/component'
          ],
        ),
      ),
    );
    expect(callers).toHaveLength(combined ? 1 : 2);
  });

  it('ships the pipeline template ConfigMap <release>-pipeline-template and points the runner at it', () => {
    const cm = one(objs, 'ConfigMap', 'rel-pipeline-template');
    const data = cm['data'] as Record<string, string>;
    expect(Object.keys(data)).toEqual(['pipelineTemplate']);
    expect(data['pipelineTemplate']).toBe(readRepoFile('templates/pipeline-template.yaml'));
    expect(yaml.load(data['pipelineTemplate'] ?? '')).toMatchObject({ kind: 'StatefulSet' });
    expect(runnerEnv(values).get('SVC_PIPELINE_TEMPLATE_CONFIGMAP')).toBe('rel-pipeline-template');
  });
});

describe('helm template: what each option changes', () => {
  it('defaults: split control plane, bundled PostgreSQL, auth on, runner options at their defaults', () => {
    const objs = render();
    expect(byKind(objs, 'Deployment').map((d) => d.metadata.name)).toEqual([
      'rel-svc-api-server',
      'rel-svc-compiler-server',
      'rel-svc-kubernetes-runner',
    ]);
    expect(byKind(objs, 'StatefulSet').map((d) => d.metadata.name)).toEqual(['rel-svc-postgresql']);
    const api = podSpec(one(objs, 'Deployment', 'rel-svc-api-server')).containers[0];
    expect(api?.args).toEqual(['api-server']);
    expect(envOf(api ?? { name: '', image: '' }).get('SVC_API_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'rel-svc-api-key',
      key: 'api-key',
    });
    expect(one(objs, 'Secret', 'rel-svc-api-key')).toBeDefined();
    const runner = runnerEnv({});
    expect(Object.fromEntries([...runner].filter(([k]) => k !== 'PGPASSWORD'))).toMatchObject({
      SVC_BACKEND: 'kubernetes',
      SVC_NAMESPACE: 'ns',
      SVC_ALLOW_CUSTOM_PIPELINE_TEMPLATE: 'false',
      SVC_PROVISIONING_TIMEOUT_SECS: '600',
      SVC_DEFAULT_STORAGE_MB: '10240',
      SVC_PIPELINE_EXECUTOR_IMAGE: 'svc/svc:0.1.0',
      SVC_PIPELINE_ADDRESS: 'service-dns',
      SVC_UNSCHEDULABLE_GRACE_SECS: '60',
      SVC_LEADER_ELECT: 'true',
      SVC_COMPILER_URL: 'http://rel-svc-compiler-server.ns.svc:8085',
      SVC_DATABASE_URL: 'postgres://svc@rel-svc-postgresql.ns.svc:5432/svc',
    });
    expect(runner.has('SVC_STORAGE_CLASS')).toBe(false);
    const runnerPod = podSpec(one(objs, 'Deployment', 'rel-svc-kubernetes-runner'));
    expect(runnerPod.serviceAccountName).toBe('rel-svc-runner');
    expect(podSpec(one(objs, 'Deployment', 'rel-svc-api-server')).automountServiceAccountToken).toBe(false);
  });

  it('combined: one svc manager Deployment with the Kubernetes runner and the artifact port', () => {
    const objs = render({ set: ['controlPlane.mode=combined'] });
    expect(byKind(objs, 'Deployment').map((d) => d.metadata.name)).toEqual(['rel-svc-manager']);
    const pod = podSpec(one(objs, 'Deployment', 'rel-svc-manager'));
    expect(pod.serviceAccountName).toBe('rel-svc-runner');
    const env = runnerEnv({ set: ['controlPlane.mode=combined'] });
    expect(env.get('SVC_RUNNER')).toBe('kubernetes');
    expect(env.get('SVC_COMPILER_URL')).toBe('http://rel-svc-manager.ns.svc:8085');
    expect(pod.containers[0]?.ports?.map((p) => p.containerPort)).toEqual([8080, 8085]);
  });

  it.each([
    [['kubernetesRunner.allowCustomPipelineTemplate=true'], 'SVC_ALLOW_CUSTOM_PIPELINE_TEMPLATE', 'true'],
    [['kubernetesRunner.provisioningTimeoutSecs=90'], 'SVC_PROVISIONING_TIMEOUT_SECS', '90'],
    [['pipelineStorage.storageClassName=fast'], 'SVC_STORAGE_CLASS', 'fast'],
    [['pipelineStorage.defaultMegabytes=2048'], 'SVC_DEFAULT_STORAGE_MB', '2048'],
    [['pipelineExecutorImage=registry.example/p:1'], 'SVC_PIPELINE_EXECUTOR_IMAGE', 'registry.example/p:1'],
    [[`image.digest=sha256:${'ab'.repeat(32)}`], 'SVC_PIPELINE_EXECUTOR_IMAGE', `svc/svc@sha256:${'ab'.repeat(32)}`],
    [['kubernetesRunner.pipelineAddress=pod-ip'], 'SVC_PIPELINE_ADDRESS', 'pod-ip'],
    [['kubernetesRunner.unschedulableGraceSecs=5'], 'SVC_UNSCHEDULABLE_GRACE_SECS', '5'],
    [['kubernetesRunner.leaderElection.enabled=false'], 'SVC_LEADER_ELECT', 'false'],
    [['compilerServer.url=http://10.0.0.7:8085'], 'SVC_COMPILER_URL', 'http://10.0.0.7:8085'],
    [['postgresql.host=127.0.0.1', 'postgresql.port=15432'], 'SVC_DATABASE_URL', 'postgres://svc@127.0.0.1:15432/svc'],
    [['logLevel=debug'], 'SVC_LOG_LEVEL', 'debug'],
  ])('%j sets %s=%s on the runner', (set, name, value) => {
    expect(runnerEnv({ set }).get(name)).toBe(value);
  });

  it('auth.enabled=false: no API key anywhere', () => {
    const objs = render({ set: ['auth.enabled=false'] });
    expect(objs.filter((o) => o.metadata.name.endsWith('-api-key'))).toEqual([]);
    for (const { container } of svcContainers(objs)) expect(envOf(container).has('SVC_API_KEY')).toBe(false);
  });

  it('auth.existingSecret: the key comes from it and the chart makes none', () => {
    const objs = render({ set: ['auth.existingSecret=my-key'] });
    expect(byKind(objs, 'Secret').map((s) => s.metadata.name)).toEqual(['rel-svc-postgresql']);
    const api = podSpec(one(objs, 'Deployment', 'rel-svc-api-server')).containers[0];
    expect(api?.env?.find((e) => e.name === 'SVC_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe('my-key');
  });

  it('external database: no PostgreSQL objects, the URL from a Secret', () => {
    const byUrl = render({ set: ['postgresql.enabled=false', 'externalDatabase.url=postgres://a:b@db:5432/svc'] });
    expect(byKind(byUrl, 'StatefulSet')).toEqual([]);
    expect(one(byUrl, 'Secret', 'rel-svc-database')['stringData']).toEqual({ url: 'postgres://a:b@db:5432/svc' });
    const bySecret = render({ set: ['postgresql.enabled=false', 'externalDatabase.existingSecret=db'] });
    expect(byKind(bySecret, 'Secret').map((s) => s.metadata.name)).toEqual(['rel-svc-api-key']);
    for (const { container } of svcContainers(bySecret)) {
      expect(envOf(container).get('SVC_DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'db', key: 'url' });
      expect(envOf(container).has('PGPASSWORD')).toBe(false);
    }
  });

  it('the bundled PostgreSQL keeps its data on a PVC, deleted with the release unless told otherwise', () => {
    const sts = (set: string[]) => one(render({ set }), 'StatefulSet', 'rel-svc-postgresql')['spec'];
    expect(sts([])).toMatchObject({
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '8Gi' } } } }],
    });
    expect(sts(['postgresql.persistence.deleteOnUninstall=false'])).toMatchObject({
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' },
    });
  });

  it('the bundled PostgreSQL goes where postgresql.nodeSelector, .tolerations and .affinity say, and nowhere by default', () => {
    const placement = (setJson: string[]) => {
      const pod = podSpec(one(render({ setJson }), 'StatefulSet', 'rel-svc-postgresql'));
      return { nodeSelector: pod.nodeSelector, tolerations: pod.tolerations, affinity: pod.affinity };
    };
    expect(placement([])).toEqual({ nodeSelector: undefined, tolerations: undefined, affinity: undefined });
    expect(
      placement([
        'postgresql.nodeSelector={"pool":"db"}',
        'postgresql.tolerations=[{"key":"db","operator":"Exists"}]',
        'postgresql.affinity={"nodeAffinity":{}}',
      ]),
    ).toEqual({
      nodeSelector: { pool: 'db' },
      tolerations: [{ key: 'db', operator: 'Exists' }],
      affinity: { nodeAffinity: {} },
    });
  });

  it('pipeline.networkPolicy: extra ingress rules are added; disabled, no policy', () => {
    const extra = { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }] };
    const [policy] = byKind(
      render({ setJson: [`pipeline.networkPolicy.extraIngress=[${JSON.stringify(extra)}]`] }),
      'NetworkPolicy',
    );
    expect((policy?.['spec'] as { ingress: unknown[] }).ingress).toEqual([expect.anything(), extra]);
    expect(byKind(render({ set: ['pipeline.networkPolicy.enabled=false'] }), 'NetworkPolicy')).toEqual([]);
  });

  it('runner kubeconfig Secret: mounted and named by SVC_KUBECONFIG', () => {
    const objs = render({ set: ['kubernetesRunner.kubeconfigSecret.name=kc'] });
    const pod = podSpec(one(objs, 'Deployment', 'rel-svc-kubernetes-runner'));
    expect(pod.volumes?.find((v) => v.name === 'kubeconfig')?.secret?.secretName).toBe('kc');
    expect(runnerEnv({ set: ['kubernetesRunner.kubeconfigSecret.name=kc'] }).get('SVC_KUBECONFIG')).toBe(
      '/etc/svc/kubeconfig/kubeconfig',
    );
  });
});
