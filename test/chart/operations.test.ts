// Issue 29 in the chart: the runner's pod-restart policy, the runner's Service and the split
// api-server's --runner-url (GET /logs reads pods/log through the runner), the optional
// PodDisruptionBudget over pipeline pods and the optional PodMonitors, each off by default.
import { describe, expect, it } from 'vitest';
import { byKind, envOf, one, podSpec, render, svcContainers } from './helm.js';

const envOfComponent = (set: string[], component: string) => {
  const found = svcContainers(render({ set })).find(({ container }) => container.name === component)?.container;
  if (!found) throw new Error(`no ${component} container`);
  return new Map([...envOf(found)].map(([k, v]) => [k, v.value]));
};

describe('helm template: pipelines through pod loss, drains and upgrades', () => {
  it('the pod-restart policy reaches the runner: 5 within 600 s, 1800 s to wait for a node by default, or as set', () => {
    const policy = (env: Map<string, string | undefined>) =>
      ['SVC_POD_RESTART_LIMIT', 'SVC_POD_RESTART_WINDOW_SECS', 'SVC_POD_RESCHEDULE_GRACE_SECS'].map((k) => env.get(k));
    expect(policy(envOfComponent([], 'kubernetes-runner'))).toEqual(['5', '600', '1800']);
    const set = envOfComponent(
      [
        'kubernetesRunner.podRestarts.limit=2',
        'kubernetesRunner.podRestarts.windowSecs=60',
        'kubernetesRunner.podRestarts.rescheduleGraceSecs=7200',
      ],
      'kubernetes-runner',
    );
    expect(policy(set)).toEqual(['2', '60', '7200']);
  });

  it('split: the runner has a Service on its port, and the api-server reads logs through it', () => {
    const objs = render();
    const service = one(objs, 'Service', 'rel-svc-kubernetes-runner');
    expect(service['spec']).toMatchObject({
      ports: [{ name: 'http', port: 8081, targetPort: 'http', protocol: 'TCP' }],
      selector: { 'app.kubernetes.io/component': 'kubernetes-runner' },
    });
    expect(envOfComponent([], 'api-server').get('SVC_RUNNER_URL')).toBe('http://rel-svc-kubernetes-runner.ns.svc:8081');
    // combined: the manager has the runner in process, no runner URL.
    expect(envOfComponent(['controlPlane.mode=combined'], 'manager').has('SVC_RUNNER_URL')).toBe(false);
  });

  it('no PodDisruptionBudget and no PodMonitor by default', () => {
    const objs = render();
    expect(byKind(objs, 'PodDisruptionBudget')).toEqual([]);
    expect(byKind(objs, 'PodMonitor')).toEqual([]);
  });

  it('pipelineDisruptionBudget.enabled: one budget over the runner-managed pipeline pods', () => {
    const objs = render({
      set: ['pipelineDisruptionBudget.enabled=true', 'pipelineDisruptionBudget.maxUnavailable=2'],
    });
    const pdb = one(objs, 'PodDisruptionBudget', 'rel-svc-pipelines');
    expect(pdb['apiVersion']).toBe('policy/v1');
    expect(pdb['spec']).toEqual({
      maxUnavailable: 2,
      selector: {
        matchLabels: { 'app.kubernetes.io/name': 'svc-pipeline', 'app.kubernetes.io/managed-by': 'svc-runner' },
      },
    });
  });

  it('monitoring.podMonitor.enabled: PodMonitors of the control plane and of the pipelines, with extra labels', () => {
    const objs = render({ set: ['monitoring.podMonitor.enabled=true', 'monitoring.podMonitor.labels.release=prom'] });
    const monitors = byKind(objs, 'PodMonitor');
    expect(monitors.map((m) => m.metadata.name)).toEqual(['rel-svc-control-plane', 'rel-svc-pipelines']);
    for (const m of monitors) {
      expect(m['apiVersion']).toBe('monitoring.coreos.com/v1');
      expect(m.metadata.labels?.['release']).toBe('prom');
    }
    const [controlPlane, pipelines] = monitors;
    expect(controlPlane?.['spec']).toMatchObject({
      podMetricsEndpoints: [{ port: 'http', path: '/metrics', interval: '30s' }],
    });
    // Pipeline pods require their deployment's token: their metrics come through the API, with its key.
    expect(pipelines?.['spec']).toMatchObject({
      selector: { matchLabels: { 'app.kubernetes.io/component': 'api-server' } },
      podMetricsEndpoints: [
        {
          port: 'http',
          path: '/v0/metrics',
          interval: '30s',
          authorization: { type: 'Bearer', credentials: { name: 'rel-svc-api-key', key: 'api-key' } },
        },
      ],
    });
    expect(podSpec(one(objs, 'Deployment', 'rel-svc-api-server')).containers[0]?.ports?.[0]?.name).toBe('http');
  });

  it('the pipeline template checkpoints at SIGTERM within its grace period', () => {
    const cm = one(render(), 'ConfigMap', 'rel-pipeline-template');
    const text = String((cm['data'] as Record<string, string>)['pipelineTemplate']);
    expect(text).toContain('terminationGracePeriodSeconds: 120');
    expect(text).toContain('--checkpoint-on-exit=true');
  });
});
