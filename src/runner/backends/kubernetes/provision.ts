import * as k8s from '@kubernetes/client-node';
import type { Logger } from '../../../logging/logger.js';
import type { PipelinePodDefaults } from '../../../model/pipeline-pod.js';
import { SvcError } from '../../../model/errors.js';
import type { BackendRuntimeConfig, Deployment } from '../../backend.js';
import { serverSideApply } from './apply.js';
import { apiMessage, ignoreNotFound, type Kube, statusOf } from './kube.js';
import { objectName } from './names.js';
import { resourceError } from './resource-error.js';
import {
  completeStatefulSet,
  configMapFor,
  type DeploymentIdentity,
  type Owner,
  renderTemplate,
  secretFor,
  serviceFor,
  templateError,
  type TemplateSource,
} from './template/index.js';

// Provision one deployment (KUBERNETES.md): read the template, render and complete it, then apply
// with server-side apply (idempotent, so a runner that crashed half-way simply applies again).
// The ConfigMap and Service go first, so the pod never waits for its config volume; once the
// StatefulSet exists they are applied again with it as their owner, so deleting it collects them.

export interface ProvisionSettings {
  /** Namespace of the default template's ConfigMap (the control plane's). */
  controlNamespace: string;
  pipelineTemplateConfigmap: string;
  allowCustomPipelineTemplate: boolean;
  executorImage: string;
  storageClass?: string;
  defaultStorageMb: number;
  serviceAccount?: string;
  logJson: boolean;
  storagePath: string;
  /** The operator's defaults for every pipeline pod (chart values pipeline.*). */
  podDefaults?: PipelinePodDefaults;
}

export const TEMPLATE_KEY = 'pipelineTemplate';

export async function provision(
  kube: Kube,
  deployment: Deployment,
  namespace: string,
  settings: ProvisionSettings,
  log: Logger,
): Promise<void> {
  const runtime = deployment.runtime;
  const who: DeploymentIdentity = {
    id: objectName(deployment.pipelineId),
    namespace,
    pipelineId: deployment.pipelineId,
    pipelineName: deployment.pipelineName,
    deploymentId: deployment.deploymentId,
  };
  const source = await readTemplate(kube, runtime, namespace, settings);
  const rendered = renderTemplate(source, {
    id: who.id,
    namespace,
    pipeline_executor_image: settings.executorImage,
    binary_ref: deployment.config.binary_ref,
    program_info_ref: deployment.config.program_info_ref,
    pipeline_storage_path: settings.storagePath,
    storage_class_name: runtime.resources?.storage_class ?? settings.storageClass ?? '',
    deployment_id: deployment.deploymentId,
    deployment_initial: deployment.initial,
    bootstrap_policy: deployment.config.bootstrap_policy,
  });
  const statefulSet = completeStatefulSet(
    rendered,
    {
      ...who,
      resources: runtime.resources ?? null,
      env: runtime.env ?? null,
      initContainers: runtime.init_containers,
      logJson: settings.logJson,
      defaultStorageMb: settings.defaultStorageMb,
      ...(settings.storageClass !== undefined && { defaultStorageClass: settings.storageClass }),
      ...(settings.serviceAccount !== undefined && { defaultServiceAccount: settings.serviceAccount }),
      ...(settings.podDefaults && { podDefaults: settings.podDefaults }),
    },
    source,
  );
  const configJson = JSON.stringify(deployment.config);
  const companions = { configJson, token: deployment.token };
  await applyCompanions(kube, who, companions, null);
  let owner: Owner;
  try {
    owner = await applyStatefulSet(kube, statefulSet, log);
  } catch (error) {
    // Nothing of a deployment that could not start may stay behind.
    await deleteCompanions(kube, who.id, namespace).catch(() => undefined);
    throw error;
  }
  await applyCompanions(kube, who, companions, owner);
}

async function readTemplate(
  kube: Kube,
  runtime: BackendRuntimeConfig,
  pipelineNamespace: string,
  settings: ProvisionSettings,
): Promise<TemplateSource & { text: string }> {
  const custom = runtime.pipeline_template_configmap;
  if (custom && !settings.allowCustomPipelineTemplate) {
    throw templateError(
      { configMap: custom.name, key: custom.key ?? TEMPLATE_KEY },
      'custom pipeline templates are not allowed by this runner (chart value kubernetesRunner.allowCustomPipelineTemplate is false)',
    );
  }
  // A custom template lives in the pipeline's namespace (seed 2.6.3), the default in the control plane's.
  const name = custom?.name ?? settings.pipelineTemplateConfigmap;
  const key = custom?.key ?? TEMPLATE_KEY;
  const namespace = custom ? pipelineNamespace : settings.controlNamespace;
  const source = { configMap: name, key };
  let configMap: k8s.V1ConfigMap;
  try {
    configMap = await kube.call('get', 'configmaps', () => kube.core.readNamespacedConfigMap({ name, namespace }));
  } catch (error) {
    if (statusOf(error) === 404)
      throw templateError(source, `config map '${name}' not found in namespace '${namespace}'`);
    throw error;
  }
  const text = configMap.data?.[key];
  if (text === undefined) throw templateError(source, `config map '${name}' has no key '${key}'`);
  return { ...source, text };
}

async function applyStatefulSet(kube: Kube, body: k8s.V1StatefulSet, log: Logger): Promise<Owner> {
  const name = body.metadata?.name ?? '';
  const namespace = body.metadata?.namespace ?? '';
  const apply = () =>
    kube.call('patch', 'statefulsets', () =>
      serverSideApply(kube.config, `/apis/apps/v1/namespaces/${namespace}/statefulsets/${name}`, body),
    );
  try {
    const applied = await apply();
    return { name, uid: applied.metadata?.uid ?? '' };
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    const message = apiMessage(error);
    if (/Forbidden: updates to statefulset spec/i.test(message)) {
      // An immutable field changed (a new template, say): delete and let the next attempt create it.
      log.warn({ statefulset: name }, 'StatefulSet %s differs in immutable fields: deleting it to recreate it', name);
      await ignoreNotFound(
        kube.call('delete', 'statefulsets', () =>
          kube.apps.deleteNamespacedStatefulSet({ name, namespace, propagationPolicy: 'Foreground' }),
        ),
      );
      throw new Error(`StatefulSet ${name} is being recreated (immutable fields changed)`, { cause: error });
    }
    // The API server refused the object (an invalid template or runtime_config): fatal for this start.
    const body = resourceError('StatefulSet', name, 'Invalid', message);
    throw new SvcError(422, body.error_code, body.message, body.details, { cause: error });
  }
}

/** Applies the ConfigMap, Secret and Service `{id}`, owned by the StatefulSet once it exists. */
async function applyCompanions(
  kube: Kube,
  who: DeploymentIdentity,
  parts: { configJson: string; token: string },
  owner: Owner | null,
): Promise<void> {
  const { id: name, namespace } = who;
  const configMap = configMapFor(who, parts.configJson, owner);
  const secret = secretFor(who, parts.token, owner);
  const service = serviceFor(who, owner);
  const core = `/api/v1/namespaces/${namespace}`;
  await Promise.all([
    kube.call('patch', 'configmaps', () => serverSideApply(kube.config, `${core}/configmaps/${name}`, configMap)),
    kube.call('patch', 'secrets', () => serverSideApply(kube.config, `${core}/secrets/${name}`, secret)),
    kube.call('patch', 'services', () => serverSideApply(kube.config, `${core}/services/${name}`, service)),
  ]);
}

/** Deletes the Service, Secret and ConfigMap `{id}`; true when all were already gone. */
export async function deleteCompanions(kube: Kube, name: string, namespace: string): Promise<boolean> {
  const gone = await Promise.all([
    ignoreNotFound(kube.call('delete', 'configmaps', () => kube.core.deleteNamespacedConfigMap({ name, namespace }))),
    ignoreNotFound(kube.call('delete', 'secrets', () => kube.core.deleteNamespacedSecret({ name, namespace }))),
    ignoreNotFound(kube.call('delete', 'services', () => kube.core.deleteNamespacedService({ name, namespace }))),
  ]);
  return gone.every(Boolean);
}
