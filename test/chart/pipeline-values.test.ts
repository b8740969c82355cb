// The chart's `pipeline.*` values (issue 19) as the runner and the API read them: the rendered env is
// loaded with svc's own config loaders, so chart and config.ts cannot drift apart.
import { describe, expect, it } from 'vitest';
import { loadApiServerConfig, loadRunnerConfig, pipelineBounds } from '../../src/config.js';
import {
  envOf,
  one,
  plainEnv,
  podSpec,
  render,
  runHelm,
  chartDir,
  valueArgs,
  type Container,
  type Values,
} from './helm.js';

function container(values: Values, deployment: string): Container {
  const c = podSpec(one(render(values), 'Deployment', `rel-svc-${deployment}`)).containers[0];
  if (!c) throw new Error(`no container in ${deployment}`);
  return c;
}

const runnerConfig = (values: Values) => loadRunnerConfig({}, plainEnv(container(values, 'kubernetes-runner')));
const apiBounds = (values: Values) =>
  pipelineBounds(loadApiServerConfig({}, plainEnv(container(values, 'api-server'))));

describe('helm template: pipeline pod defaults reach the runner', () => {
  it('by default: no placement, default requests and a memory limit (Burstable)', () => {
    expect(runnerConfig({}).pipelinePodDefaults).toEqual({
      nodeSelector: {},
      tolerations: [],
      affinity: {},
      labels: {},
      annotations: {},
      priorityClassName: '',
      env: [],
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '4Gi' } },
      imagePullSecrets: [],
    });
  });

  it("the chart's imagePullSecrets reach pipeline pods too", () => {
    const values = { setJson: ['imagePullSecrets=[{"name":"registry"}]'] };
    expect(runnerConfig(values).pipelinePodDefaults.imagePullSecrets).toEqual([{ name: 'registry' }]);
  });

  it('each placement value', () => {
    const values: Values = {
      set: ['pipeline.priorityClassName=pipelines-high'],
      setJson: [
        'pipeline.nodeSelector={"pool":"pipelines"}',
        'pipeline.tolerations=[{"key":"dedicated","operator":"Equal","value":"pipelines","effect":"NoSchedule"}]',
        'pipeline.affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}',
        'pipeline.labels={"team":"data"}',
        'pipeline.annotations={"example.com/owner":"ops"}',
        'pipeline.env=[{"name":"RUST_LOG","value":"info"}]',
      ],
    };
    expect(runnerConfig(values).pipelinePodDefaults).toMatchObject({
      nodeSelector: { pool: 'pipelines' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'pipelines', effect: 'NoSchedule' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
      labels: { team: 'data' },
      annotations: { 'example.com/owner': 'ops' },
      priorityClassName: 'pipelines-high',
      env: [{ name: 'RUST_LOG', value: 'info' }],
    });
  });

  // Helm merges maps into the defaults; null removes a default.
  it('default resources, numbers as quantities, null removing a default', () => {
    const values = {
      setJson: ['pipeline.resources={"requests":{"cpu":"2","memory":"3Gi"},"limits":{"cpu":4,"memory":null}}'],
    };
    expect(runnerConfig(values).pipelinePodDefaults.resources).toEqual({
      requests: { cpu: '2', memory: '3Gi' },
      limits: { cpu: '4' },
    });
  });

  it('combined mode: the manager gets them', () => {
    const c = container({ set: ['controlPlane.mode=combined', 'pipeline.priorityClassName=p'] }, 'manager');
    expect(JSON.parse(envOf(c).get('SVC_PIPELINE_POD_DEFAULTS')?.value ?? '{}')).toMatchObject({
      priorityClassName: 'p',
    });
  });

  it('pipeline.storageMb.default sets the PVC size, else pipelineStorage.defaultMegabytes', () => {
    expect(runnerConfig({ set: ['pipeline.storageMb.default=4096'] }).defaultStorageMb).toBe(4096);
    expect(runnerConfig({ set: ['pipelineStorage.defaultMegabytes=2048'] }).defaultStorageMb).toBe(2048);
  });
});

describe('helm template: bounds reach the API', () => {
  it("by default: the release namespace, the chart's pipeline account only, no init container images", () => {
    expect(apiBounds({})).toEqual({
      storageClasses: [],
      namespaces: ['ns'],
      serviceAccounts: ['rel-svc-pipeline'],
      initContainerImages: [],
    });
  });

  it('pipeline.serviceAccounts and pipeline.initContainerImages add to the allowlists', () => {
    const values = {
      setJson: ['pipeline.serviceAccounts=["reader"]', 'pipeline.initContainerImages=["busybox:1.36","x/y@sha256:ab"]'],
    };
    expect(apiBounds(values)).toMatchObject({
      serviceAccounts: ['rel-svc-pipeline', 'reader'],
      initContainerImages: ['busybox:1.36', 'x/y@sha256:ab'],
    });
  });

  it('kubernetesRunner.allowedNamespaces adds to the namespaces a start may name', () => {
    const set = ['kubernetesRunner.allowedNamespaces={team-a,ns,team-b}'];
    expect(apiBounds({ set }).namespaces).toEqual(['ns', 'team-a', 'team-b']);
  });

  it('each bound, on the api-server and the runner alike (the Pipeline resources start pipelines too)', () => {
    const values: Values = {
      set: ['pipeline.memoryMb.min=256', 'pipeline.memoryMb.max=8192', 'pipeline.storageMb.max=20480'],
      setJson: ['pipeline.storageClasses=["fast","standard"]'],
    };
    expect(apiBounds(values)).toEqual({
      memoryMbMin: 256,
      memoryMbMax: 8192,
      storageMbMax: 20480,
      storageClasses: ['fast', 'standard'],
      namespaces: ['ns'],
      serviceAccounts: ['rel-svc-pipeline'],
      initContainerImages: [],
    });
    expect(pipelineBounds(runnerConfig(values))).toEqual(apiBounds(values));
    expect(pipelineBounds(runnerConfig({}))).toEqual(apiBounds({}));
  });

  it('combined mode: the manager gets them', () => {
    const env = envOf(container({ set: ['controlPlane.mode=combined', 'pipeline.memoryMb.max=512'] }, 'manager'));
    expect(env.get('SVC_PIPELINE_MEMORY_MB_MAX')?.value).toBe('512');
  });

  it.each([
    [['pipeline.storageMb.default=30000', 'pipeline.storageMb.max=20000'], 'pipeline.storageMb.default (30000)'],
    [['pipelineStorage.storageClassName=slow', 'pipeline.storageClasses[0]=fast'], 'pipelineStorage.storageClassName'],
    [['pipeline.serviceAccounts[0]=rel-svc-runner'], "must not name the runner's service account"],
  ])('refuses defaults outside the bounds: %j', (set, message) => {
    const r = runHelm(['template', 'rel', chartDir, ...valueArgs({ set })]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
  });
});
