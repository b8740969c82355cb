// A container's environment, resolved the way the kubelet does: env (value, fieldRef, configMap and
// secret keys, $(VAR) references) after envFrom. On top of the host's environment (the process needs
// PATH), minus the agent's own credentials, plus POD_IP and SVC_STORAGE_PATH for local processes.
import type * as k8s from '@kubernetes/client-node';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { ConfigError, toHostPath, type Mounts } from './volumes.js';

/** Marks a pod's processes so a restarted agent can find and stop those of its predecessor. */
export const POD_MARKER_ENV = 'SVC_AGENT_POD_UID';
export const NODE_MARKER_ENV = 'SVC_AGENT_NODE';
/**
 * The marker's value: the node and the agent's state dir. Several test clusters on one machine all
 * name their node svc-test-node; with the state dir in the marker, an agent that starts stops only
 * the processes of its own predecessor, never another cluster's pods.
 */
export const agentMarker = (nodeName: string, stateDir: string): string => `${nodeName}@${stateDir}`;

/** Replaces $(NAME) with earlier values; $$(NAME) escapes, unknown names stay as written. */
export function expandRefs(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && env[name] !== undefined ? env[name] : match;
  });
}

function fieldValue(pod: V1Pod, fieldPath: string, podIP: string): string {
  const meta = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (keyed) return (keyed[1] === 'labels' ? meta.labels : meta.annotations)?.[keyed[2] ?? ''] ?? '';
  const values: Record<string, string | undefined> = {
    'metadata.name': meta.name,
    'metadata.namespace': meta.namespace,
    'metadata.uid': meta.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.podIP': podIP,
    'status.hostIP': '127.0.0.1',
  };
  const value = values[fieldPath];
  if (value === undefined) throw new ConfigError(`unsupported fieldRef ${fieldPath}`);
  return value;
}

async function keyOf(
  core: CoreV1Api,
  kind: 'configmap' | 'secret',
  namespace: string,
  ref: { name?: string; key: string; optional?: boolean },
): Promise<string | undefined> {
  const name = ref.name ?? '';
  const data = await objectData(core, kind, namespace, name);
  const value = data?.[ref.key];
  if (value === undefined && !ref.optional) throw new ConfigError(`${kind} "${name}" has no key ${ref.key}`);
  return value;
}

async function objectData(
  core: CoreV1Api,
  kind: 'configmap' | 'secret',
  namespace: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  if (kind === 'configmap') {
    return (await core.readNamespacedConfigMap({ name, namespace }).catch(() => undefined))?.data;
  }
  const secret = await core.readNamespacedSecret({ name, namespace }).catch(() => undefined);
  if (!secret) return undefined;
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

export interface EnvContext {
  core: CoreV1Api;
  pod: V1Pod;
  container: V1Container;
  podIP: string;
  mounts: Mounts;
  /** agentMarker() of this agent. */
  marker: string;
}

async function envFromSources(ctx: EnvContext, namespace: string, env: Record<string, string>): Promise<void> {
  for (const from of ctx.container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'configmap' : 'secret';
    const name = ref?.name ?? '';
    const data = await objectData(ctx.core, kind, namespace, name);
    if (!data && !ref?.optional) throw new ConfigError(`${kind} "${name}" not found`);
    for (const [k, v] of Object.entries(data ?? {})) env[(from.prefix ?? '') + k] = v;
  }
}

async function envValue(
  ctx: EnvContext,
  namespace: string,
  item: k8s.V1EnvVar,
  env: Record<string, string>,
): Promise<string | undefined> {
  const from = item.valueFrom;
  if (!from) return expandRefs(item.value ?? '', env);
  if (from.fieldRef) return fieldValue(ctx.pod, from.fieldRef.fieldPath, ctx.podIP);
  if (from.configMapKeyRef) return keyOf(ctx.core, 'configmap', namespace, from.configMapKeyRef);
  if (from.secretKeyRef) return keyOf(ctx.core, 'secret', namespace, from.secretKeyRef);
  // resourceFieldRef: there are no resource limits here.
  return '0';
}

/** The container's own variables (what `env` in the pod spec produces), paths rewritten to the host. */
export async function containerEnv(ctx: EnvContext): Promise<Record<string, string>> {
  const namespace = ctx.pod.metadata?.namespace ?? 'default';
  const env: Record<string, string> = {};
  await envFromSources(ctx, namespace, env);
  for (const item of ctx.container.env ?? []) {
    const value = await envValue(ctx, namespace, item, env);
    if (value !== undefined) env[item.name] = toHostPath(ctx.mounts, value);
  }
  return env;
}

/** The full process environment: host basics, the agent's extras, the image's ENV, the container's. */
export function processEnv(
  ctx: EnvContext,
  own: Record<string, string>,
  imageEnv: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  // Never hand the agent's admin credentials or its settings to a pod.
  for (const key of Object.keys(base)) {
    if (key === 'KUBECONFIG' || key.startsWith('SVC_AGENT_') || key.startsWith('SVC_POD_')) delete base[key];
  }
  const extras: Record<string, string> = { POD_IP: ctx.podIP, HOSTNAME: ctx.pod.metadata?.name ?? '' };
  if (ctx.mounts.storagePath !== undefined) extras.SVC_STORAGE_PATH = ctx.mounts.storagePath;
  const image = Object.fromEntries(Object.entries(imageEnv).map(([k, v]) => [k, expandRefs(v, extras)]));
  return {
    ...base,
    ...extras,
    ...image,
    ...own,
    [POD_MARKER_ENV]: ctx.pod.metadata?.uid ?? '',
    [NODE_MARKER_ENV]: ctx.marker,
  };
}
