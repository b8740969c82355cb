import { describe, expect, it } from 'vitest';
import { configMapFor, secretFor, serviceFor } from './companions.js';
import { INPUT } from './template.fixture.js';

const OWNER = { name: INPUT.id, uid: '6a1f0c2e-0000-4000-8000-000000000001' };
const OWNER_REFS = [
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    name: OWNER.name,
    uid: OWNER.uid,
    controller: true,
    blockOwnerDeletion: true,
  },
];
const LABELS = {
  'app.kubernetes.io/managed-by': 'svc-runner',
  'app.kubernetes.io/name': 'svc-pipeline',
  'svc/pipeline-id': INPUT.pipelineId,
  'svc/pipeline-name': INPUT.pipelineName,
  'svc/deployment-id': INPUT.deploymentId,
};

describe('serviceFor', () => {
  it('is the headless Service of the pipeline pod, owned by the StatefulSet', () => {
    const svc = serviceFor(INPUT, OWNER);
    expect(svc.apiVersion).toBe('v1');
    expect(svc.kind).toBe('Service');
    expect(svc.metadata).toMatchObject({
      name: INPUT.id,
      namespace: INPUT.namespace,
      labels: LABELS,
      ownerReferences: OWNER_REFS,
    });
    expect(svc.spec).toMatchObject({
      clusterIP: 'None',
      selector: { 'app.kubernetes.io/name': 'svc-pipeline', 'svc/pipeline-id': INPUT.pipelineId },
      ports: [{ name: 'http', port: 8080, targetPort: 8080 }],
    });
  });
});

describe('configMapFor', () => {
  it('holds the deployment config under config.json, owned by the StatefulSet', () => {
    const json = JSON.stringify({ pipeline_id: INPUT.pipelineId });
    const cm = configMapFor(INPUT, json, OWNER);
    expect(cm.apiVersion).toBe('v1');
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.metadata).toMatchObject({
      name: INPUT.id,
      namespace: INPUT.namespace,
      labels: LABELS,
      ownerReferences: OWNER_REFS,
    });
    expect(cm.data).toEqual({ 'config.json': json });
  });
});

describe('secretFor', () => {
  it('holds the deployment token under auth-token (the key the pod env refers to), owned by the StatefulSet', () => {
    const secret = secretFor(INPUT, 'f'.repeat(64), OWNER);
    expect(secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque' });
    expect(secret.metadata).toMatchObject({ name: INPUT.id, namespace: INPUT.namespace, ownerReferences: OWNER_REFS });
    expect(Buffer.from(secret.data?.['auth-token'] ?? '', 'base64').toString()).toBe('f'.repeat(64));
  });
});

describe('without an owner', () => {
  it.each([null, { name: '', uid: '' }])('leaves ownerReferences out (%j)', (owner) => {
    expect(serviceFor(INPUT, owner).metadata).not.toHaveProperty('ownerReferences');
    expect(configMapFor(INPUT, '{}', owner).metadata).not.toHaveProperty('ownerReferences');
    expect(secretFor(INPUT, 't', owner).metadata).not.toHaveProperty('ownerReferences');
  });
});
