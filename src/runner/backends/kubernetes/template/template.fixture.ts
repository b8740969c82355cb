import type { PlaceholderValues } from './placeholders.js';
import type { CompletionInput } from './complete.js';

// Shared inputs of the template tests (excluded from the build like every *.fixture.ts).

export const VALUES: PlaceholderValues = {
  id: 'pipeline-0b9c4d4e-5a3f-4c53-9c1e-2f0a8f6c7d11',
  namespace: 'pipelines',
  pipeline_executor_image: 'registry.example:5000/svc/pipeline-executor:0.1.0@sha256:abc123',
  binary_ref: 'http://svc-compiler:8081/binary/0b9c4d4e/3/aa11/bb22',
  program_info_ref: 'http://svc-compiler:8081/program_info/0b9c4d4e/3/aa11/bb22',
  pipeline_storage_path: '/var/lib/svc/storage',
  storage_class_name: '',
  deployment_id: '7e0c1f7e-2d0b-4a5c-8d6e-1f2a3b4c5d6e',
  deployment_initial: 'running',
  bootstrap_policy: 'allow',
};

export const SOURCE = { configMap: 'svc-pipeline-template', key: 'pipelineTemplate' };

/** The smallest template the runner accepts: one container and the `storage` claim. */
export const MINIMAL = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: '{id}'
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
        - name: pipeline
          image: '{pipeline_executor_image}'
          args: [pipeline, '--initial={deployment_initial}']
          env:
            - {name: FROM_TEMPLATE, value: t}
            - {name: SHARED, value: template}
  volumeClaimTemplates:
    - metadata: {name: storage}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: {storage_class_name}
        resources: {requests: {storage: 1Gi}}
`;

export const INPUT: CompletionInput = {
  id: VALUES.id,
  namespace: VALUES.namespace,
  pipelineId: '0b9c4d4e-5a3f-4c53-9c1e-2f0a8f6c7d11',
  pipelineName: 'orders_per-customer',
  deploymentId: VALUES.deployment_id,
  logJson: false,
  defaultStorageMb: 2048,
};

/** The env entry every completed pipeline container ends with: the token by reference to Secret `{id}`. */
export const TOKEN_ENV = {
  name: 'SVC_AUTH_TOKEN',
  valueFrom: { secretKeyRef: { name: INPUT.id, key: 'auth-token' } },
};
