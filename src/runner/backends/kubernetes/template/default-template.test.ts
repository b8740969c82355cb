import { readFileSync } from 'node:fs';
import type { V1Container, V1StatefulSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { completeStatefulSet } from './complete.js';
import { renderTemplate } from './render.js';
import { INPUT, TOKEN_ENV, VALUES } from './template.fixture.js';

// templates/pipeline-template.yaml is what the chart ships as the default template: it must render
// and complete cleanly, and carry what the pipeline process and the test cluster rely on.

const TEXT = readFileSync(new URL('../../../../../templates/pipeline-template.yaml', import.meta.url), 'utf8');
const SOURCE = { configMap: 'svc-pipeline-template', key: 'pipelineTemplate' };

/** The pipeline container, so the checks below need no optional chaining at every step. */
function pipelineOf(sts: V1StatefulSet): V1Container {
  const c = sts.spec?.template.spec?.containers[0];
  if (!c) throw new Error('no container');
  return c;
}

/** A container's part of Pod Security restricted. */
function restrictedContainer(c: V1Container): void {
  const sc = c.securityContext;
  expect(sc).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  expect({ privileged: sc?.privileged, add: sc?.capabilities?.add }).toEqual({});
  expect(sc?.runAsUser).not.toBe(0);
}

describe('the default template', () => {
  it.each(['', 'standard'])('renders with storage class %j', (storageClass) => {
    const sts = renderTemplate({ ...SOURCE, text: TEXT }, { ...VALUES, storage_class_name: storageClass });
    expect(sts.metadata).toEqual({ name: VALUES.id, namespace: VALUES.namespace });
    expect(sts.spec?.volumeClaimTemplates?.[0]?.spec?.storageClassName).toBe(storageClass || null);
  });

  it('runs `svc pipeline` with every value as one --flag=value argument', () => {
    const sts = renderTemplate({ ...SOURCE, text: TEXT }, VALUES);
    const c = pipelineOf(sts);
    expect(c.name).toBe('pipeline');
    expect(c.image).toBe(VALUES.pipeline_executor_image);
    expect(c.command).toBeUndefined();
    expect(c.args).toEqual([
      'pipeline',
      '--config-file=/etc/svc/config.json',
      `--initial=${VALUES.deployment_initial}`,
      `--deployment-id=${VALUES.deployment_id}`,
      `--binary-ref=${VALUES.binary_ref}`,
      `--program-info-ref=${VALUES.program_info_ref}`,
      `--storage-path=${VALUES.pipeline_storage_path}`,
      `--bootstrap-policy=${VALUES.bootstrap_policy}`,
      // A drain or an eviction checkpoints first (issue 29), within the grace period below.
      '--checkpoint-on-exit=true',
    ]);
    expect(sts.spec?.template.spec?.terminationGracePeriodSeconds).toBe(120);
    expect((c.args ?? []).some((a) => a.startsWith('--bind-address'))).toBe(false);
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    // TCP: every HTTP request to the pipeline needs its token, which the kubelet does not hold.
    expect(c.readinessProbe?.tcpSocket).toEqual({ port: 8080 });
    expect(c.readinessProbe?.httpGet).toBeUndefined();
    expect(c.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'storage', mountPath: VALUES.pipeline_storage_path },
        { name: 'config', mountPath: '/etc/svc', readOnly: true },
      ]),
    );
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(sts.spec?.template.spec?.volumes).toContainEqual({ name: 'config', configMap: { name: VALUES.id } });
  });

  // The checks of Pod Security "restricted" that a pod spec decides (the real node's restricted
  // namespace admits it: test/cluster/node/helm.test.ts).
  it('passes Pod Security restricted once completed', () => {
    const sts = completeStatefulSet(renderTemplate({ ...SOURCE, text: TEXT }, VALUES), INPUT, SOURCE);
    const pod = sts.spec?.template.spec;
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect({ hostNetwork: pod?.hostNetwork, hostPID: pod?.hostPID, hostIPC: pod?.hostIPC }).toEqual({});
    expect((pod?.volumes ?? []).filter((v) => v.hostPath)).toEqual([]);
    for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) restrictedContainer(c);
  });

  it('completes cleanly', () => {
    const sts = renderTemplate({ ...SOURCE, text: TEXT }, VALUES);
    const done = completeStatefulSet(sts, { ...INPUT, logJson: true, env: { TZ: 'UTC' } }, SOURCE);
    expect(pipelineOf(done).env).toEqual([
      { name: 'TZ', value: 'UTC' },
      { name: 'SVC_LOG_JSON', value: '1' },
      TOKEN_ENV,
    ]);
    expect(done.spec?.volumeClaimTemplates?.[0]).toMatchObject({
      metadata: { name: 'storage' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${INPUT.defaultStorageMb}M` } } },
    });
    expect(done.spec?.volumeClaimTemplates?.[0]?.spec).not.toHaveProperty('storageClassName');
    // Pod labels must match the selector, or the API server refuses the StatefulSet.
    const labels = done.spec?.template.metadata?.labels ?? {};
    for (const [k, v] of Object.entries(done.spec?.selector?.matchLabels ?? {})) expect(labels[k]).toBe(v);
  });
});
