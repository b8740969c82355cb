// The chart's pipelineResources.watchNamespaces: the namespaces whose Pipeline resources the runner
// keeps besides the release's, reaching the runner's config through its rendered env (read with
// svc's own config loader), and exactly the RBAC the controller's calls there need (rbac.ts's list).
import { describe, expect, it } from 'vitest';
import { loadRunnerConfig } from '../../src/config.js';
import { PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES } from '../../src/runner/backends/kubernetes/rbac.js';
import { byKind, one, plainEnv, podSpec, render, runHelm, chartDir, valueArgs, type Values } from './helm.js';

const runnerConfig = (values: Values) => {
  const c = podSpec(one(render(values), 'Deployment', 'rel-svc-kubernetes-runner')).containers[0];
  if (!c) throw new Error('no runner container');
  return loadRunnerConfig({}, plainEnv(c));
};

const subject = [{ kind: 'ServiceAccount', name: 'rel-svc-runner', namespace: 'ns' }];

describe('helm template: pipelineResources.watchNamespaces', () => {
  it('by default: the release namespace only, no further RBAC', () => {
    const objs = render();
    expect(runnerConfig({}).pipelineResourcesNamespaces).toEqual([]);
    expect(byKind(objs, 'Role').map((r) => r.metadata.name)).toEqual(['rel-svc-runner']);
    expect(objs.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
  });

  it('a list: the runner keeps those namespaces, a Role and RoleBinding in each with exactly its rules there', () => {
    const values = { setJson: ['pipelineResources.watchNamespaces=["team-a","team-b","ns"]'] };
    const objs = render(values);
    expect(runnerConfig(values).pipelineResourcesNamespaces).toEqual(['team-a', 'team-b', 'ns']);
    const roles = byKind(objs, 'Role').filter((r) => r.metadata.name === 'rel-svc-runner-pipelines');
    // The release's own namespace is covered by the runner's Role already.
    expect(roles.map((r) => r.metadata.namespace)).toEqual(['team-a', 'team-b']);
    for (const role of roles) expect(role['rules']).toEqual(PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES);
    const bindings = byKind(objs, 'RoleBinding').filter((r) => r.metadata.name === 'rel-svc-runner-pipelines');
    expect(bindings.map((b) => b.metadata.namespace)).toEqual(['team-a', 'team-b']);
    for (const b of bindings) {
      expect(b['roleRef']).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'rel-svc-runner-pipelines',
      });
      expect(b['subjects']).toEqual(subject);
    }
    expect(objs.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
  });

  it('beside allowedNamespaces in the same namespace: two Roles of different names, no clash', () => {
    const values = {
      set: ['kubernetesRunner.allowedNamespaces={team-a}'],
      setJson: ['pipelineResources.watchNamespaces=["team-a"]'],
    };
    const names = byKind(render(values), 'Role')
      .filter((r) => r.metadata.namespace === 'team-a')
      .map((r) => r.metadata.name);
    expect(names.sort()).toEqual(['rel-svc-runner', 'rel-svc-runner-pipelines']);
  });

  it('["*"]: every namespace, through one ClusterRole and ClusterRoleBinding with the same rules', () => {
    const values = { setJson: ['pipelineResources.watchNamespaces=["*"]'] };
    const objs = render(values);
    expect(runnerConfig(values).pipelineResourcesNamespaces).toEqual(['*']);
    const cluster = objs.filter((o) => o.kind.startsWith('Cluster'));
    expect(cluster.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ClusterRole/ns-rel-svc-runner-pipelines',
      'ClusterRoleBinding/ns-rel-svc-runner-pipelines',
    ]);
    expect(one(objs, 'ClusterRole', 'ns-rel-svc-runner-pipelines')['rules']).toEqual(
      PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES,
    );
    const binding = one(objs, 'ClusterRoleBinding', 'ns-rel-svc-runner-pipelines');
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'ns-rel-svc-runner-pipelines',
    });
    expect(binding['subjects']).toEqual(subject);
    expect(byKind(objs, 'Role').map((r) => r.metadata.name)).toEqual(['rel-svc-runner']);
  });

  it('with pipelineResources.enabled=false: no grant at all', () => {
    const objs = render({
      set: ['pipelineResources.enabled=false'],
      setJson: ['pipelineResources.watchNamespaces=["*"]'],
    });
    const grants = objs.filter((o) => /^(Cluster)?Role(Binding)?$/.test(o.kind));
    expect(grants.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Role/rel-svc-runner',
      'RoleBinding/rel-svc-runner',
    ]);
  });

  it('refuses a namespace that is not a name, and * beside others (values.schema.json)', () => {
    for (const bad of ['["Team_A"]', '["*","team-a"]']) {
      const r = runHelm([
        'template',
        'rel',
        chartDir,
        '--namespace',
        'ns',
        ...valueArgs({ setJson: [`pipelineResources.watchNamespaces=${bad}`] }),
      ]);
      expect(r.status, bad).not.toBe(0);
      expect(r.stderr).toContain('watchNamespaces');
    }
  });
});
