// The real node's pipeline template, without vitest (the pod-loss bench uses it too): the default
// template with the real node's nodeSelector and an init container that hands the storage volume
// to the pipeline's uid.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../chart/helm.js';

const DEFAULT_TEMPLATE = readFileSync(join(repoRoot, 'templates', 'pipeline-template.yaml'), 'utf8');

export const NODE = 'svc-real-node';

/**
 * The default template, for the real node (kube-scheduler binds pods that select it, once their PVC
 * is bound; the node agent leaves them alone), with an init container that hands the storage volume
 * to the pipeline's uid: the hostPath provisioner makes it root-owned 0750, and fsGroup does not
 * apply to hostPath volumes.
 */
export const REAL_NODE_TEMPLATE = DEFAULT_TEMPLATE.replace(
  // The pod's own securityContext (a container's is indented deeper): the additions go before it.
  '\n      securityContext:\n        runAsNonRoot: true\n',
  `
      nodeSelector: {kubernetes.io/hostname: ${NODE}}
      initContainers:
        - name: storage-owner
          image: '{pipeline_executor_image}'
          command: [chown, '1000:1000', '{pipeline_storage_path}']
          securityContext: {runAsNonRoot: false, runAsUser: 0}
          volumeMounts:
            - name: storage
              mountPath: '{pipeline_storage_path}'
      securityContext:
        runAsNonRoot: true
`,
);

/** REAL_NODE_TEMPLATE with `from` replaced by `to`; throws if `from` is not there (the default changed). */
export function realNodeTemplate(from: string, to: string): string {
  if (!REAL_NODE_TEMPLATE.includes(from)) throw new Error(`the real node's template has no ${JSON.stringify(from)}`);
  return REAL_NODE_TEMPLATE.replace(from, to);
}
