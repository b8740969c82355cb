import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadApiServerConfig,
  loadManagerConfig,
  loadPipelineConfig,
  loadRunnerConfig,
  pipelineBounds,
} from './config.js';

// Flags win over SVC_ variables, variables over defaults; bad values name the flag and its variable.

const runner = (flags: Record<string, unknown>, env: Record<string, string> = {}) =>
  loadRunnerConfig({ compilerUrl: 'http://127.0.0.1:1', ...flags }, env);

describe('runner config', () => {
  it('has the Kubernetes defaults of KUBERNETES.md', () => {
    const c = runner({ backend: 'kubernetes' });
    expect(c).toMatchObject({
      backend: 'kubernetes',
      pipelineTemplateConfigmap: 'svc-pipeline-template',
      allowCustomPipelineTemplate: false,
      provisioningTimeoutSecs: 600,
      pipelineAddress: 'service-dns',
      leaderElect: false,
      leaderElectionId: 'svc-runner',
      pipelineResources: false,
      defaultStorageMb: 10240,
      unschedulableGraceSecs: 60,
      podRescheduleGraceSecs: 1800,
      podRestartLimit: 5,
      podRestartWindowSecs: 600,
    });
    expect(c.kubeconfig).toBeUndefined();
  });

  it('takes a bare boolean flag, a boolean word, or the variable', () => {
    expect(runner({ leaderElect: true }).leaderElect).toBe(true);
    expect(runner({ leaderElect: 'false' }).leaderElect).toBe(false);
    expect(runner({}, { SVC_ALLOW_CUSTOM_PIPELINE_TEMPLATE: 'yes' }).allowCustomPipelineTemplate).toBe(true);
    expect(() => runner({ leaderElect: 'maybe' })).toThrow(/--leader-elect \(or SVC_LEADER_ELECT\)/);
  });

  it('finds the kubeconfig in --kubeconfig, then SVC_KUBECONFIG, then KUBECONFIG', () => {
    const env = { SVC_KUBECONFIG: '/svc', KUBECONFIG: '/kube' };
    expect(runner({ kubeconfig: '/flag' }, env).kubeconfig).toBe('/flag');
    expect(runner({}, env).kubeconfig).toBe('/svc');
    expect(runner({}, { KUBECONFIG: '/kube' }).kubeconfig).toBe('/kube');
  });

  it.each([
    [{ backend: 'docker' }, '--backend'],
    [{ pipelineAddress: 'ip' }, '--pipeline-address'],
    [{ provisioningTimeoutSecs: '0' }, '--provisioning-timeout-secs'],
    [{ namespace: 'Bad_NS' }, '--namespace'],
    [{ defaultStorageMb: 'ten' }, '--default-storage-mb'],
    [{ pipelinePodDefaults: '{nope' }, '--pipeline-pod-defaults'],
    [{ pipelinePodDefaults: '{"nodeSelector":{"a":1}}' }, '--pipeline-pod-defaults'],
    [{ pipelinePodDefaults: '{"nodeselector":{}}' }, '--pipeline-pod-defaults'],
    [{ pipelineResourcesNamespaces: 'team_a' }, '--pipeline-resources-namespaces'],
    [{ pipelineResourcesNamespaces: '*,team-a' }, '--pipeline-resources-namespaces'],
  ])('refuses %j naming %s', (flags, flag) => {
    expect(() => runner(flags)).toThrow(ConfigError);
    expect(() => runner(flags)).toThrow(flag);
  });
});

describe('pipeline resources namespaces', () => {
  it('are none by default, a list or * (every namespace) from the flag or SVC_PIPELINE_RESOURCES_NAMESPACES', () => {
    expect(runner({}).pipelineResourcesNamespaces).toEqual([]);
    expect(runner({ pipelineResourcesNamespaces: 'team-a, team-b' }).pipelineResourcesNamespaces).toEqual([
      'team-a',
      'team-b',
    ]);
    expect(runner({}, { SVC_PIPELINE_RESOURCES_NAMESPACES: '*' }).pipelineResourcesNamespaces).toEqual(['*']);
  });
});

describe('pipeline pod defaults', () => {
  it('are empty by default and read from SVC_PIPELINE_POD_DEFAULTS as JSON', () => {
    expect(runner({}).pipelinePodDefaults).toMatchObject({ nodeSelector: {}, tolerations: [], priorityClassName: '' });
    const env = { SVC_PIPELINE_POD_DEFAULTS: '{"priorityClassName":"p","resources":{"requests":{"cpu":1}}}' };
    expect(runner({}, env).pipelinePodDefaults).toMatchObject({
      priorityClassName: 'p',
      resources: { requests: { cpu: '1' } },
    });
  });
});

describe('pipeline bounds', () => {
  it('none by default; each from its variable on the api-server and the manager', () => {
    expect(pipelineBounds(loadApiServerConfig({}, {}))).toEqual({ storageClasses: [] });
    const env = {
      SVC_PIPELINE_MEMORY_MB_MIN: '256',
      SVC_PIPELINE_MEMORY_MB_MAX: '4096',
      SVC_PIPELINE_STORAGE_MB_MAX: '10240',
      SVC_PIPELINE_STORAGE_CLASSES: 'fast, standard',
      SVC_PIPELINE_NAMESPACES: 'svc,team-a',
    };
    const expected = {
      memoryMbMin: 256,
      memoryMbMax: 4096,
      storageMbMax: 10240,
      storageClasses: ['fast', 'standard'],
      namespaces: ['svc', 'team-a'],
    };
    expect(pipelineBounds(loadApiServerConfig({}, env))).toEqual(expected);
    expect(pipelineBounds(loadManagerConfig({}, env))).toEqual(expected);
    expect(() => loadApiServerConfig({}, { SVC_PIPELINE_MEMORY_MB_MAX: '0' })).toThrow('--pipeline-memory-mb-max');
  });
});

describe('manager config', () => {
  it('runs the local runner by default and the Kubernetes one on request', () => {
    expect(loadManagerConfig({}, {}).runner).toBe('local');
    const c = loadManagerConfig({ runner: 'kubernetes', compilerPort: '9000' }, {});
    expect(c).toMatchObject({ runner: 'kubernetes', compilerPort: 9000 });
    expect(() => loadManagerConfig({ compilerUrl: 'ftp://x' }, {})).toThrow('--compiler-url');
  });
});

describe('api-server config', () => {
  it('takes the runner URL from --runner-url or SVC_RUNNER_URL; none by default', () => {
    expect(loadApiServerConfig({}, {}).runnerUrl).toBeUndefined();
    expect(loadApiServerConfig({}, { SVC_RUNNER_URL: 'http://r:8081' }).runnerUrl).toBe('http://r:8081');
    const flagWins = loadApiServerConfig({ runnerUrl: 'http://flag:1' }, { SVC_RUNNER_URL: 'http://env:2' });
    expect(flagWins.runnerUrl).toBe('http://flag:1');
    expect(() => loadApiServerConfig({ runnerUrl: 'runner:8081' }, {})).toThrow('--runner-url (or SVC_RUNNER_URL)');
  });

  it('drops a trailing slash of a service URL once, where it is read', () => {
    expect(loadApiServerConfig({ runnerUrl: 'http://r:8081//' }, {}).runnerUrl).toBe('http://r:8081');
    expect(runner({ compilerUrl: 'https://c:8085/base/' }).compilerUrl).toBe('https://c:8085/base');
    expect(loadManagerConfig({ compilerUrl: 'http://c:1/' }, {}).compilerUrl).toBe('http://c:1');
  });
});

describe('pipeline config', () => {
  it('takes the template arguments that override the config file', () => {
    const c = loadPipelineConfig({ configFile: '/c.json', storagePath: '/s', bootstrapPolicy: 'reject' }, {});
    expect(c).toMatchObject({ storagePath: '/s', bootstrapPolicy: 'reject' });
    expect(() => loadPipelineConfig({ configFile: '/c', bootstrapPolicy: 'maybe' }, {})).toThrow('--bootstrap-policy');
  });
});
