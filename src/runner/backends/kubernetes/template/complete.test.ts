import type { V1StatefulSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../../model/errors.js';
import { completeStatefulSet, type CompletionInput } from './complete.js';
import { renderTemplate } from './render.js';
import { INPUT, MINIMAL, SOURCE, TOKEN_ENV, VALUES } from './template.fixture.js';

const rendered = (): V1StatefulSet => renderTemplate({ ...SOURCE, text: MINIMAL }, VALUES);
const complete = (input: Partial<CompletionInput> = {}, sts = rendered()) =>
  completeStatefulSet(sts, { ...INPUT, ...input });
const pipeline = (sts: V1StatefulSet) => sts.spec?.template.spec?.containers.find((c) => c.name === 'pipeline');
const claim = (sts: V1StatefulSet) => sts.spec?.volumeClaimTemplates?.find((c) => c.metadata?.name === 'storage');

function thrown(f: () => unknown): SvcError {
  try {
    f();
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
  throw new Error('expected an SvcError');
}

const LABELS = {
  'app.kubernetes.io/managed-by': 'svc-runner',
  'app.kubernetes.io/name': 'svc-pipeline',
  'svc/pipeline-id': INPUT.pipelineId,
  'svc/pipeline-name': INPUT.pipelineName,
  'svc/deployment-id': INPUT.deploymentId,
};

describe('completeStatefulSet', () => {
  it('names, scales, labels and selects', () => {
    const sts = complete({ id: 'pipeline-x', namespace: 'ns1' });
    expect(sts.apiVersion).toBe('apps/v1');
    expect(sts.kind).toBe('StatefulSet');
    expect(sts.metadata).toMatchObject({ name: 'pipeline-x', namespace: 'ns1', labels: LABELS });
    expect(sts.metadata?.annotations).toEqual({ 'svc/pipeline-name': INPUT.pipelineName });
    expect(sts.spec?.replicas).toBe(1);
    expect(sts.spec?.serviceName).toBe('pipeline-x');
    // Only what never changes for a pipeline: the selector of a StatefulSet is immutable.
    expect(sts.spec?.selector).toEqual({
      matchLabels: { 'app.kubernetes.io/name': 'svc-pipeline', 'svc/pipeline-id': INPUT.pipelineId },
    });
    // The template's own labels stay next to ours.
    expect(sts.spec?.template.metadata?.labels).toEqual({ app: 'x', ...LABELS });
    expect(claim(sts)?.metadata?.labels).toEqual(LABELS);
    expect(sts.spec?.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Retain', whenScaled: 'Retain' });
  });

  it('does not change its argument', () => {
    const sts = rendered();
    const before = structuredClone(sts);
    complete({ env: { A: '1' }, logJson: true, resources: { cpu_cores_max: 2, storage_class: 'fast' } }, sts);
    expect(sts).toEqual(before);
  });

  it('keeps label values valid, with the full name in an annotation', () => {
    const long = `${'n'.repeat(70)}.`;
    const sts = complete({ pipelineName: `_${long}` });
    const label = sts.metadata?.labels?.['svc/pipeline-name'] ?? '';
    expect(label).toMatch(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/);
    expect(label.length).toBeLessThanOrEqual(63);
    expect(sts.metadata?.annotations?.['svc/pipeline-name']).toBe(`_${long}`);
  });

  it('uses the defaults when runtime_config sets no resources', () => {
    const sts = complete({ defaultStorageMb: 2048 });
    expect(pipeline(sts)?.resources).toBeUndefined();
    expect(claim(sts)?.spec?.resources?.requests).toEqual({ storage: '2048M' });
    // No class anywhere: the null from `storageClassName: {storage_class_name}` is dropped.
    expect(claim(sts)?.spec).not.toHaveProperty('storageClassName');
    expect(sts.spec?.template.spec).not.toHaveProperty('serviceAccountName');
  });

  it('uses the chart defaults for class and service account', () => {
    const sts = complete({ defaultStorageClass: 'standard', defaultServiceAccount: 'svc-pipeline' });
    expect(claim(sts)?.spec?.storageClassName).toBe('standard');
    expect(sts.spec?.template.spec?.serviceAccountName).toBe('svc-pipeline');
  });

  it('applies runtime_config.resources over the defaults', () => {
    const sts = complete({
      defaultStorageClass: 'standard',
      defaultServiceAccount: 'svc-pipeline',
      resources: {
        cpu_cores_min: 0.5,
        cpu_cores_max: 2,
        memory_mb_min: 512,
        memory_mb_max: 4096,
        storage_mb_max: 10000,
        storage_class: 'fast-ssd',
        service_account_name: 'reader',
      },
    });
    expect(pipeline(sts)?.resources).toEqual({
      requests: { cpu: '500m', memory: '512M' },
      limits: { cpu: '2', memory: '4096M' },
    });
    expect(claim(sts)?.spec).toMatchObject({
      resources: { requests: { storage: '10000M' } },
      storageClassName: 'fast-ssd',
      accessModes: ['ReadWriteOnce'],
    });
    expect(sts.spec?.template.spec?.serviceAccountName).toBe('reader');
  });

  it('treats null resource members as unset', () => {
    const sts = complete({ resources: { cpu_cores_max: null, storage_mb_max: null, storage_class: null } });
    expect(pipeline(sts)?.resources).toBeUndefined();
    expect(claim(sts)?.spec?.resources?.requests?.storage).toBe('2048M');
  });

  it('keeps template resources that runtime_config does not set', () => {
    const sts = rendered();
    const c = pipeline(sts);
    if (c) c.resources = { requests: { cpu: '100m', 'ephemeral-storage': '1Gi' }, limits: { cpu: '1' } };
    const out = complete({ resources: { cpu_cores_max: 1.25 } }, sts);
    expect(pipeline(out)?.resources).toEqual({
      requests: { cpu: '100m', 'ephemeral-storage': '1Gi' },
      limits: { cpu: '1250m' },
    });
  });

  it.each([
    [
      false,
      { A: 'user' },
      [
        ['FROM_TEMPLATE', 't'],
        ['SHARED', 'template'],
        ['A', 'user'],
      ],
    ],
    [
      true,
      {},
      [
        ['FROM_TEMPLATE', 't'],
        ['SHARED', 'template'],
        ['SVC_LOG_JSON', '1'],
      ],
    ],
    [
      true,
      { SHARED: 'user' },
      [
        ['FROM_TEMPLATE', 't'],
        ['SHARED', 'user'],
        ['SVC_LOG_JSON', '1'],
      ],
    ],
    [
      false,
      null,
      [
        ['FROM_TEMPLATE', 't'],
        ['SHARED', 'template'],
      ],
    ],
  ])('env with logJson %s and user env %j', (logJson, env, expected) => {
    const out = pipeline(complete({ logJson, env }))?.env;
    expect(out).toEqual([...expected.map(([name, value]) => ({ name, value })), TOKEN_ENV]);
  });

  it('SVC_LOG_JSON replaces a template value of the same name', () => {
    const sts = rendered();
    pipeline(sts)?.env?.push({ name: 'SVC_LOG_JSON', value: '0' });
    const env = pipeline(complete({ logJson: true }, sts))?.env ?? [];
    expect(env.filter((v) => v.name === 'SVC_LOG_JSON')).toEqual([{ name: 'SVC_LOG_JSON', value: '1' }]);
  });

  it('completes the container named pipeline, else the first', () => {
    const sts = rendered();
    const containers = sts.spec?.template.spec?.containers ?? [];
    containers.unshift({ name: 'sidecar', image: 'side' });
    const out = complete({ env: { A: '1' } }, sts).spec?.template.spec?.containers ?? [];
    expect(out[0]?.env).toBeUndefined();
    expect(out[1]?.env).toContainEqual({ name: 'A', value: '1' });
    const renamed = rendered();
    const only = renamed.spec?.template.spec?.containers[0];
    if (only) only.name = 'main';
    expect(pipeline(complete({}, renamed))).toBeUndefined();
    expect(complete({ env: { A: '1' } }, renamed).spec?.template.spec?.containers[0]?.env).toContainEqual({
      name: 'A',
      value: '1',
    });
  });

  it('appends runtime_config.init_containers after the template ones', () => {
    const sts = rendered();
    const podSpec = sts.spec?.template.spec;
    if (podSpec) podSpec.initContainers = [{ name: 'from-template', image: 'busybox' }];
    const init = [{ name: 'fetch', image: 'curl:8', args: ['-o', '/x'] }];
    const out = complete({ initContainers: init }, sts);
    expect(out.spec?.template.spec?.initContainers).toEqual([{ name: 'from-template', image: 'busybox' }, ...init]);
    expect(complete({ initContainers: [] }).spec?.template.spec).not.toHaveProperty('initContainers');
  });

  it.each([
    ['a mapping', { name: 'a', image: 'b' }, 'runtime_config.init_containers'],
    ['a string', 'busybox', 'runtime_config.init_containers'],
    ['a scalar item', ['busybox'], 'runtime_config.init_containers[0]'],
    ['no name', [{ image: 'b' }], 'runtime_config.init_containers[0].name'],
    ['a bad name', [{ name: 'Bad_Name', image: 'b' }], 'runtime_config.init_containers[0].name'],
    ['no image', [{ name: 'a' }], 'runtime_config.init_containers[0].image'],
    ['the pipeline name', [{ name: 'pipeline', image: 'b' }], 'runtime_config.init_containers[0].name'],
    [
      'a repeated name',
      [
        { name: 'a', image: 'b' },
        { name: 'a', image: 'c' },
      ],
      'runtime_config.init_containers[1].name',
    ],
  ])('refuses init_containers that are %s', (_what, initContainers, field) => {
    const err = thrown(() => complete({ initContainers }));
    expect(err.status).toBe(400);
    expect(err.errorCode).toBe('InvalidRuntimeConfig');
    expect(err.details?.field).toBe(field);
    expect(err.message).toContain(field);
  });

  it('refuses a template without the storage claim template', () => {
    const sts = rendered();
    const claimMeta = claim(sts)?.metadata;
    if (claimMeta) claimMeta.name = 'data';
    const err = thrown(() => completeStatefulSet(sts, INPUT, SOURCE));
    expect(err.errorCode).toBe('TemplateError');
    expect(err.message).toContain("'storage'");
    expect(err.details).toMatchObject({ config_map: SOURCE.configMap, key: SOURCE.key });
    const none = rendered();
    if (none.spec) delete none.spec.volumeClaimTemplates;
    expect(thrown(() => completeStatefulSet(none, INPUT)).errorCode).toBe('TemplateError');
  });

  it('keeps other claim templates, labelled, with their own size', () => {
    const sts = rendered();
    sts.spec?.volumeClaimTemplates?.push({
      metadata: { name: 'scratch' },
      spec: { resources: { requests: { storage: '1Gi' } } },
    });
    const other = complete({}, sts).spec?.volumeClaimTemplates?.[1];
    expect(other?.spec?.resources?.requests?.storage).toBe('1Gi');
    expect(other?.metadata?.labels).toEqual(LABELS);
  });
});
