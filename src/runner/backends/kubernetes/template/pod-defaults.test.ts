import type { V1StatefulSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { PipelinePodDefaults } from '../../../../model/pipeline-pod.js';
import { completeStatefulSet, type CompletionInput } from './complete.js';
import { renderTemplate } from './render.js';
import { INPUT, MINIMAL, SOURCE, TOKEN_ENV, VALUES } from './template.fixture.js';

// The operator's pod defaults (chart values pipeline.*) as the runner completes a StatefulSet with them.

const DEFAULTS = PipelinePodDefaults.parse({
  nodeSelector: { pool: 'pipelines', zone: 'a' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'pipelines', effect: 'NoSchedule' }],
  affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
  labels: { team: 'data', 'svc/pipeline-id': 'not-ours' },
  annotations: { 'example.com/owner': 'ops' },
  priorityClassName: 'pipelines-high',
  env: [
    { name: 'FROM_OPERATOR', value: 'o' },
    { name: 'SHARED', value: 'operator' },
  ],
  resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
  imagePullSecrets: [{ name: 'registry' }, { name: 'shared' }],
});

const withTemplate = (patch: (sts: V1StatefulSet) => void = () => undefined) => {
  const sts = renderTemplate({ ...SOURCE, text: MINIMAL }, VALUES);
  patch(sts);
  return sts;
};
const complete = (input: Partial<CompletionInput> = {}, sts = withTemplate()) =>
  completeStatefulSet(sts, { ...INPUT, podDefaults: DEFAULTS, ...input });
const pod = (sts: V1StatefulSet) => sts.spec?.template.spec;
const container = (sts: V1StatefulSet) => pod(sts)?.containers.find((c) => c.name === 'pipeline');

describe('pipeline pod defaults', () => {
  it("adds the chart's imagePullSecrets after the template's own, each once", () => {
    expect(pod(complete())?.imagePullSecrets).toEqual([{ name: 'registry' }, { name: 'shared' }]);
    const sts = withTemplate((t) => {
      const spec = t.spec?.template.spec;
      if (spec) spec.imagePullSecrets = [{ name: 'own' }, { name: 'shared' }];
    });
    expect(pod(complete({}, sts))?.imagePullSecrets).toEqual([
      { name: 'own' },
      { name: 'shared' },
      { name: 'registry' },
    ]);
  });

  it('adds placement, priority class, labels and annotations to a template that has none', () => {
    const sts = complete();
    expect(pod(sts)?.nodeSelector).toEqual({ pool: 'pipelines', zone: 'a' });
    expect(pod(sts)?.tolerations).toEqual(DEFAULTS.tolerations);
    expect(pod(sts)?.affinity).toEqual(DEFAULTS.affinity);
    expect(pod(sts)?.priorityClassName).toBe('pipelines-high');
    const meta = sts.spec?.template.metadata;
    expect(meta?.labels).toMatchObject({ team: 'data', app: 'x' });
    // The runner's own labels win over the operator's.
    expect(meta?.labels?.['svc/pipeline-id']).toBe(INPUT.pipelineId);
    expect(meta?.annotations).toMatchObject({ 'example.com/owner': 'ops' });
  });

  it('lets the template override each one', () => {
    const sts = complete(
      {},
      withTemplate((t) => {
        const spec = t.spec?.template.spec;
        if (!spec || !t.spec) throw new Error('no pod spec');
        spec.nodeSelector = { zone: 'b' };
        spec.tolerations = [{ key: 'other', operator: 'Exists' }];
        spec.affinity = { podAntiAffinity: {} };
        spec.priorityClassName = 'template-class';
        t.spec.template.metadata = { labels: { team: 'template' }, annotations: { 'example.com/owner': 'me' } };
      }),
    );
    expect(pod(sts)?.nodeSelector).toEqual({ pool: 'pipelines', zone: 'b' });
    expect(pod(sts)?.tolerations).toEqual([{ key: 'other', operator: 'Exists' }]);
    expect(pod(sts)?.affinity).toEqual({ podAntiAffinity: {} });
    expect(pod(sts)?.priorityClassName).toBe('template-class');
    expect(sts.spec?.template.metadata?.labels?.['team']).toBe('template');
    expect(sts.spec?.template.metadata?.annotations?.['example.com/owner']).toBe('me');
  });

  it("puts the operator's env under the template's and the user's", () => {
    const env = container(complete({ env: { FROM_USER: 'u' } }))?.env;
    expect(env).toEqual([
      { name: 'FROM_OPERATOR', value: 'o' },
      { name: 'FROM_TEMPLATE', value: 't' },
      { name: 'SHARED', value: 'template' },
      { name: 'FROM_USER', value: 'u' },
      TOKEN_ENV,
    ]);
  });

  it('gives a pod whose runtime_config names no resources default requests and limits (Burstable)', () => {
    expect(container(complete())?.resources).toEqual({
      requests: { cpu: '250m', memory: '512Mi' },
      limits: { memory: '2Gi' },
    });
  });

  it('defaults each resource only when neither runtime_config nor the template mentions it', () => {
    // memory_mb_max below the default request: the memory default is left out whole, cpu still applies.
    expect(container(complete({ resources: { memory_mb_max: 256 } }))?.resources).toEqual({
      requests: { cpu: '250m' },
      limits: { memory: '256M' },
    });
    expect(container(complete({ resources: { cpu_cores_max: 2 } }))?.resources).toEqual({
      requests: { memory: '512Mi' },
      limits: { cpu: '2', memory: '2Gi' },
    });
    const fromTemplate = withTemplate((t) => {
      const c = t.spec?.template.spec?.containers[0];
      if (c) c.resources = { requests: { memory: '1Gi' } };
    });
    expect(container(complete({}, fromTemplate))?.resources).toEqual({
      requests: { cpu: '250m', memory: '1Gi' },
    });
  });

  it('changes nothing without defaults', () => {
    const sts = complete({ podDefaults: PipelinePodDefaults.parse({}) });
    expect(pod(sts)).not.toHaveProperty('nodeSelector');
    expect(pod(sts)).not.toHaveProperty('tolerations');
    expect(pod(sts)).not.toHaveProperty('affinity');
    expect(pod(sts)).not.toHaveProperty('priorityClassName');
    expect(container(sts)?.resources).toBeUndefined();
  });
});
