// helm lint --strict on the defaults and on each option; values.schema.json rejects bad values; the
// chart's copy of the pipeline template is the repo's templates/pipeline-template.yaml.
import { describe, expect, it } from 'vitest';
import { CASES } from './cases.js';
import { chartDir, readRepoFile, runHelm, valueArgs, type Values } from './helm.js';

describe('helm lint --strict', () => {
  it.each(CASES)('passes: $name', ({ values }) => {
    const r = runHelm(['lint', '--strict', chartDir, ...valueArgs(values)]);
    expect(r.stdout + r.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.status).toBe(0);
  });
});

describe('values.schema.json', () => {
  const rejected: { name: string; values: Values; where: string }[] = [
    {
      name: 'a string for provisioningTimeoutSecs',
      values: { setString: ['kubernetesRunner.provisioningTimeoutSecs=600'] },
      where: '/kubernetesRunner/provisioningTimeoutSecs',
    },
    {
      name: 'a zero provisioningTimeoutSecs',
      values: { set: ['kubernetesRunner.provisioningTimeoutSecs=0'] },
      where: '/kubernetesRunner/provisioningTimeoutSecs',
    },
    {
      name: 'a negative unschedulableGraceSecs',
      values: { set: ['kubernetesRunner.unschedulableGraceSecs=-1'] },
      where: '/kubernetesRunner/unschedulableGraceSecs',
    },
    { name: 'an unknown mode', values: { set: ['controlPlane.mode=triple'] }, where: '/controlPlane/mode' },
    { name: 'a string for logJson', values: { setString: ['logJson=yes'] }, where: '/logJson' },
    { name: 'an unknown log level', values: { set: ['logLevel=loud'] }, where: '/logLevel' },
    { name: 'an unknown top-level key', values: { set: ['logjson=true'] }, where: "'logjson'" },
    {
      name: 'a string for allowCustomPipelineTemplate',
      values: { setString: ['kubernetesRunner.allowCustomPipelineTemplate=true'] },
      where: '/kubernetesRunner/allowCustomPipelineTemplate',
    },
    {
      name: 'a zero defaultMegabytes',
      values: { set: ['pipelineStorage.defaultMegabytes=0'] },
      where: '/pipelineStorage/defaultMegabytes',
    },
    {
      name: 'an executor image that could inject YAML into the template',
      values: { set: ['pipelineExecutorImage=evil: {x}'] },
      where: '/pipelineExecutorImage',
    },
    {
      name: 'an unknown pipeline address',
      values: { set: ['kubernetesRunner.pipelineAddress=dns'] },
      where: '/kubernetesRunner/pipelineAddress',
    },
    {
      name: 'no bundled PostgreSQL and no external database',
      values: { set: ['postgresql.enabled=false'] },
      where: '/externalDatabase',
    },
    {
      name: 'an external URL that is not postgres://',
      values: { set: ['postgresql.enabled=false', 'externalDatabase.url=mysql://x/y'] },
      where: '/externalDatabase/url',
    },
    { name: 'a port out of range', values: { set: ['apiServer.port=70000'] }, where: '/apiServer/port' },
    { name: 'a malformed digest', values: { set: ['image.digest=latest'] }, where: '/image/digest' },
    {
      name: 'a toleration with an unknown operator',
      values: { setJson: ['pipeline.tolerations=[{"key":"k","operator":"Maybe"}]'] },
      where: '/pipeline/tolerations/0/operator',
    },
    {
      name: 'a node selector value that is not a string',
      values: { setJson: ['pipeline.nodeSelector={"pool":{"x":1}}'] },
      where: '/pipeline/nodeSelector/pool',
    },
    {
      name: 'an unknown affinity',
      values: { setJson: ['pipeline.affinity={"nodeAfinity":{}}'] },
      where: "'nodeAfinity'",
    },
    { name: 'a label that is a list', values: { setJson: ['pipeline.labels={"a":[1]}'] }, where: '/pipeline/labels/a' },
    {
      name: 'an annotation that is a number',
      values: { set: ['pipeline.annotations.a=1'] },
      where: '/pipeline/annotations/a',
    },
    {
      name: 'a priority class name in capitals',
      values: { set: ['pipeline.priorityClassName=High'] },
      where: '/pipeline/priorityClassName',
    },
    {
      name: 'an env entry without a value',
      values: { setJson: ['pipeline.env=[{"name":"A"}]'] },
      where: '/pipeline/env/0',
    },
    {
      name: 'an env name with a space',
      values: { setJson: ['pipeline.env=[{"name":"A B","value":"1"}]'] },
      where: '/pipeline/env/0/name',
    },
    {
      name: 'a resource quantity that is not one',
      values: { set: ['pipeline.resources.requests.cpu=lots'] },
      where: '/pipeline/resources/requests/cpu',
    },
    { name: 'an unknown resource', values: { set: ['pipeline.resources.requests.gpu=1'] }, where: "'gpu'" },
    { name: 'a zero memoryMb.max', values: { set: ['pipeline.memoryMb.max=0'] }, where: '/pipeline/memoryMb/max' },
    {
      name: 'a string memoryMb.min',
      values: { setString: ['pipeline.memoryMb.min=1'] },
      where: '/pipeline/memoryMb/min',
    },
    {
      name: 'a zero storageMb.default',
      values: { set: ['pipeline.storageMb.default=0'] },
      where: '/pipeline/storageMb/default',
    },
    {
      name: 'a fractional storageMb.max',
      values: { set: ['pipeline.storageMb.max=1.5'] },
      where: '/pipeline/storageMb/max',
    },
    {
      name: 'a storage class that is no name',
      values: { set: ['pipeline.storageClasses[0]=Fast_1'] },
      where: '/pipeline/storageClasses/0',
    },
    {
      name: 'a TLS Secret name that is no name',
      values: { set: ['https.secretRef=API_tls'] },
      where: '/https/secretRef',
    },
  ];

  it.each(rejected)('rejects $name (template and lint)', ({ values, where }) => {
    const template = runHelm(['template', 'rel', chartDir, ...valueArgs(values)]);
    expect(template.status).not.toBe(0);
    expect(template.stderr).toContain("values don't meet the specifications of the schema");
    expect(template.stderr).toContain(where);
    const lint = runHelm(['lint', '--strict', chartDir, ...valueArgs(values)]);
    expect(lint.status).not.toBe(0);
  });

  it('accepts the defaults as they are', () => {
    expect(runHelm(['template', 'rel', chartDir]).status).toBe(0);
  });
});

describe('the pipeline template the chart ships', () => {
  it('is the repo template (run `npm run chart:sync` after changing templates/pipeline-template.yaml)', () => {
    expect(readRepoFile('charts/svc/files/pipeline-template.yaml')).toBe(
      readRepoFile('templates/pipeline-template.yaml'),
    );
  });
});
