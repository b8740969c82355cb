import type { V1ConfigMap, V1ObjectMeta, V1Secret, V1Service } from '@kubernetes/client-node';
import { PIPELINE_TOKEN_KEY } from '../../../../http/pipeline-token.js';
import {
  deploymentAnnotations,
  deploymentLabels,
  type DeploymentIdentity,
  ownedByStatefulSet,
  selectorLabels,
} from './labels.js';

// The three objects that go with a pipeline's StatefulSet (KUBERNETES.md "Objects of one deployment"),
// both owned by it so that deleting the StatefulSet collects them.

export const PIPELINE_PORT = 8080;
/** The key of the deployment config in ConfigMap `{id}`; the template mounts it at /etc/svc. */
export const CONFIG_KEY = 'config.json';

export interface Owner {
  name: string;
  uid: string;
}

/**
 * `null` (or an owner without a uid, which the API server would refuse) leaves ownerReferences out: the
 * companions can be applied before the StatefulSet exists, then again with its uid.
 */
const ownership = (owner: Owner | null) => (owner?.uid ? { ownerReferences: ownedByStatefulSet(owner) } : {});

/**
 * Headless Service `{id}`: it gives the pod the DNS name `{id}-0.{id}.{namespace}.svc` that the runner
 * uses. `publishNotReadyAddresses`, because the runner reads `/status` before the pod is Ready
 * (Initializing, bootstrap progress), and readiness is exactly what it is waiting to see.
 */
/** Both companions: named `{id}` like the StatefulSet, its labels, owned by it once it exists. */
function companionMetadata(who: DeploymentIdentity, owner: Owner | null): V1ObjectMeta {
  return {
    name: who.id,
    namespace: who.namespace,
    labels: deploymentLabels(who),
    annotations: deploymentAnnotations(who),
    ...ownership(owner),
  };
}

export function serviceFor(who: DeploymentIdentity, owner: Owner | null): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: companionMetadata(who, owner),
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: selectorLabels(who),
      ports: [{ name: 'http', port: PIPELINE_PORT, targetPort: PIPELINE_PORT, protocol: 'TCP' }],
    },
  };
}

/** ConfigMap `{id}` holding the pipeline's deployment config file (`--config-file`). */
export function configMapFor(who: DeploymentIdentity, configJson: string, owner: Owner | null): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: companionMetadata(who, owner),
    data: { [CONFIG_KEY]: configJson },
  };
}

/**
 * Secret `{id}` holding the deployment's HTTP token (docs/security.md), read by the pod as
 * SVC_AUTH_TOKEN through a secretKeyRef: the value is in no template, StatefulSet or pipeline record.
 */
export function secretFor(who: DeploymentIdentity, token: string, owner: Owner | null): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: companionMetadata(who, owner),
    type: 'Opaque',
    // data, not stringData: server-side apply owns `data` fields cleanly (stringData is write-only).
    data: { [PIPELINE_TOKEN_KEY]: Buffer.from(token, 'utf8').toString('base64') },
  };
}
