// The values the chart tests render: the defaults and each option of issue 7, one at a time (plus the
// combinations a mode implies). Shared by the lint/template tests and the server dry-run.
import type { Values } from './helm.js';

export interface ValuesCase {
  name: string;
  values: Values;
}

export const CASES: readonly ValuesCase[] = [
  { name: 'defaults', values: {} },
  { name: 'combined control plane', values: { set: ['controlPlane.mode=combined'] } },
  { name: 'logJson', values: { set: ['logJson=true'] } },
  { name: 'logJson, combined', values: { set: ['logJson=true', 'controlPlane.mode=combined'] } },
  { name: 'logLevel debug', values: { set: ['logLevel=debug'] } },
  { name: 'auth off', values: { set: ['auth.enabled=false'] } },
  { name: 'auth from an existing Secret', values: { set: ['auth.existingSecret=my-key'] } },
  {
    name: 'external database URL',
    values: { set: ['postgresql.enabled=false', 'externalDatabase.url=postgres://svc:pw@db.example:5432/svc'] },
  },
  {
    name: 'external database Secret',
    values: {
      set: ['postgresql.enabled=false', 'externalDatabase.existingSecret=db', 'externalDatabase.existingSecretKey=dsn'],
    },
  },
  { name: 'custom pipeline templates allowed', values: { set: ['kubernetesRunner.allowCustomPipelineTemplate=true'] } },
  { name: 'provisioning time-out', values: { set: ['kubernetesRunner.provisioningTimeoutSecs=90'] } },
  { name: 'unschedulable grace', values: { set: ['kubernetesRunner.unschedulableGraceSecs=5'] } },
  { name: 'pipeline address pod-ip', values: { set: ['kubernetesRunner.pipelineAddress=pod-ip'] } },
  { name: 'no leader election', values: { set: ['kubernetesRunner.leaderElection.enabled=false'] } },
  { name: 'runner kubeconfig Secret', values: { set: ['kubernetesRunner.kubeconfigSecret.name=runner-kubeconfig'] } },
  {
    name: 'pipeline storage',
    values: { set: ['pipelineStorage.storageClassName=fast', 'pipelineStorage.defaultMegabytes=2048'] },
  },
  { name: 'pipeline executor image', values: { set: ['pipelineExecutorImage=registry.example/svc-pipeline:1.2'] } },
  { name: 'pipeline service account name', values: { set: ['pipelineServiceAccount.name=pipelines'] } },
  {
    name: 'image by digest',
    values: { set: [`image.digest=sha256:${'ab'.repeat(32)}`, 'image.repository=registry.example/svc'] },
  },
  { name: 'compiler URL', values: { set: ['compilerServer.url=http://10.0.0.7:8085'] } },
  {
    name: 'bundled PostgreSQL options',
    values: {
      set: ['postgresql.port=15432', 'postgresql.host=127.0.0.1', 'postgresql.persistence.deleteOnUninstall=false'],
      setString: ['postgresql.persistence.size=20Gi', 'postgresql.persistence.storageClassName=standard'],
    },
  },
  {
    name: 'pipeline pod placement',
    values: {
      set: ['pipeline.priorityClassName=pipelines-high'],
      setJson: [
        'pipeline.nodeSelector={"pool":"pipelines"}',
        'pipeline.tolerations=[{"key":"dedicated","operator":"Equal","value":"pipelines","effect":"NoSchedule"}]',
        'pipeline.affinity={"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[]}}',
        'pipeline.labels={"team":"data"}',
        'pipeline.annotations={"example.com/owner":"ops"}',
        'pipeline.env=[{"name":"RUST_LOG","value":"info"}]',
      ],
    },
  },
  {
    name: 'pipeline default resources',
    values: { setJson: ['pipeline.resources={"requests":{"cpu":"2","memory":"3Gi"},"limits":{"cpu":4}}'] },
  },
  {
    name: 'pipeline bounds',
    values: {
      set: [
        'pipeline.memoryMb.min=256',
        'pipeline.memoryMb.max=8192',
        'pipeline.storageMb.default=4096',
        'pipeline.storageMb.max=20480',
        'pipelineStorage.storageClassName=fast',
      ],
      setJson: ['pipeline.storageClasses=["fast","standard"]'],
    },
  },
  {
    name: 'pipeline bounds, combined',
    values: { set: ['controlPlane.mode=combined', 'pipeline.memoryMb.max=8192', 'pipeline.storageMb.max=20480'] },
  },
  { name: 'no Pipeline resources', values: { set: ['pipelineResources.enabled=false'] } },
  { name: 'allowed pipeline namespaces', values: { set: ['kubernetesRunner.allowedNamespaces={team-a,team-b}'] } },
  { name: 'API over HTTPS', values: { set: ['https.secretRef=api-tls'] } },
  { name: 'API over HTTPS, combined', values: { set: ['https.secretRef=api-tls', 'controlPlane.mode=combined'] } },
  {
    name: 'replicas',
    values: { set: ['apiServer.replicas=2', 'compilerServer.replicas=2', 'kubernetesRunner.replicas=2'] },
  },
];

/** Further namespaces a case lets pipelines run in (`kubernetesRunner.allowedNamespaces={a,b}`). */
export const allowedNamespacesOf = (values: Values): string[] =>
  (values.set ?? [])
    .find((v) => v.startsWith('kubernetesRunner.allowedNamespaces='))
    ?.replace(/^[^{]*\{|\}$/g, '')
    .split(',') ?? [];
