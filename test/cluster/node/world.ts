// What the real node's test files share: the pipeline template for the real node (template.ts), and the runner's
// world (`svc api-server`, `svc compiler-server`, `svc runner --backend kubernetes` on the host) with
// extra templates as ConfigMaps of the namespace.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { expect, inject } from 'vitest';
import type { SvcProcess } from '../../support/svc-process.js';
import { DEFAULT_TEMPLATE, type RunnerWorld, startRunner, startWorld } from '../../kubernetes/harness.js';
import { NODE, REAL_NODE_TEMPLATE } from './template.js';
import { adminConfig } from '../helpers.js';

export { NODE, REAL_NODE_TEMPLATE, realNodeTemplate } from './template.js';

export interface RealNodeWorld {
  world: RunnerWorld;
  runner: SvcProcess;
}

/**
 * A namespace whose default template is REAL_NODE_TEMPLATE, with `templates` as ConfigMaps (key
 * `pipelineTemplate`) for `runtime_config.pipeline_template_configmap`, and the runner on the svc
 * image. The compiler's artifact server listens on the node's bridge address: pods fetch the program
 * from it. `runnerArgs` go to `svc runner` after the world's own.
 */
export async function startRealNodeWorld(
  prefix: string,
  templates: Record<string, string>,
  runnerArgs: readonly string[] = [],
): Promise<RealNodeWorld> {
  expect(REAL_NODE_TEMPLATE).not.toBe(DEFAULT_TEMPLATE);
  const node = await adminConfig().makeApiClient(k8s.CoreV1Api).readNode({ name: NODE });
  const nodeIp = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  expect(nodeIp).toBeDefined();
  const world = await startWorld(prefix, true, ['--bind-address', String(nodeIp)]);
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  await core.replaceNamespacedConfigMap({
    name: 'svc-pipeline-template',
    namespace: world.namespace,
    body: { metadata: { name: 'svc-pipeline-template' }, data: { pipelineTemplate: REAL_NODE_TEMPLATE } },
  });
  for (const [name, pipelineTemplate] of Object.entries(templates)) {
    await core.createNamespacedConfigMap({
      namespace: world.namespace,
      body: { metadata: { name }, data: { pipelineTemplate } },
    });
  }
  const runner = await startRunner(world, [
    '--pipeline-executor-image',
    inject('svcImage'),
    '--allow-custom-pipeline-template',
    ...runnerArgs,
  ]);
  return { world, runner };
}

/** `runtime_config` that picks the namespace's template ConfigMap `name`. */
export const withTemplate = (name: string) => ({ pipeline_template_configmap: { name, key: 'pipelineTemplate' } });

/**
 * `node -e script arg` in the `pipeline` container of `pod` (`kubectl exec`, through the API server
 * and the kubelet): its output, trimmed.
 */
async function nodeInPod(namespace: string, pod: string, script: string, arg: string): Promise<string> {
  const { stdout } = await promisify(execFile)('kubectl', [
    ...['--kubeconfig', inject('kubeconfig'), 'exec', '-n', namespace, pod, '-c', 'pipeline'],
    ...['--', 'node', '-e', script, arg],
  ]);
  return stdout.trim();
}

/** `name` looked up in `pod` with the pod's resolver (its resolv.conf from the kubelet): the first address. */
export const resolveInPod = (namespace: string, pod: string, name: string): Promise<string> =>
  nodeInPod(
    namespace,
    pod,
    "require('node:dns').promises.lookup(process.argv[1]).then((a) => console.log(a.address))",
    name,
  );

/** The HTTP status of a GET of `url` from inside `pod`. */
export const statusFromPod = (namespace: string, pod: string, url: string): Promise<string> =>
  nodeInPod(namespace, pod, 'fetch(process.argv[1]).then((r) => console.log(r.status))', url);
