// Pod volumes as host directories. With no mount namespaces, a container's mountPath cannot exist;
// instead every path the pod names (workingDir, args, env values) that lies under a mountPath is
// rewritten to the volume's host directory. A PVC's host directory is its hostPath PV's path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Api, V1Container, V1Pod, V1Volume } from '@kubernetes/client-node';

/** A problem with the pod's configuration: reported as CreateContainerConfigError, retried. */
export class ConfigError extends Error {}

export interface Mounts {
  /** mountPath → host path, longest mountPath first. */
  entries: Array<[string, string]>;
  /** Host path of the first PVC-backed mount (the pipeline's storage), if any. */
  storagePath?: string;
}

async function claimHostPath(core: CoreV1Api, namespace: string, claimName: string): Promise<string> {
  const pvc = await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace });
  const pvName = pvc.spec?.volumeName;
  if (pvc.status?.phase !== 'Bound' || !pvName) throw new ConfigError(`PVC ${claimName} is not bound`);
  const pv = await core.readPersistentVolume({ name: pvName });
  const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
  if (!path) throw new ConfigError(`PV ${pvName} has no hostPath; only hostPath volumes can be mounted here`);
  mkdirSync(path, { recursive: true });
  return path;
}

/** Writes a ConfigMap's or Secret's keys as files into `dir`, as the kubelet projects them. */
async function fillFromObject(core: CoreV1Api, namespace: string, volume: V1Volume, dir: string): Promise<void> {
  if (volume.configMap) {
    const name = volume.configMap.name ?? '';
    const cm = await core.readNamespacedConfigMap({ name, namespace }).catch(() => undefined);
    if (!cm && !volume.configMap.optional) throw new ConfigError(`configmap "${name}" not found`);
    writeItems(dir, cm?.data ?? {}, volume.configMap.items, (v) => Buffer.from(v));
  } else if (volume.secret) {
    const name = volume.secret.secretName ?? '';
    const secret = await core.readNamespacedSecret({ name, namespace }).catch(() => undefined);
    if (!secret && !volume.secret.optional) throw new ConfigError(`secret "${name}" not found`);
    writeItems(dir, secret?.data ?? {}, volume.secret.items, (v) => Buffer.from(v, 'base64'));
  }
}

async function volumeHostPath(core: CoreV1Api, pod: V1Pod, volume: V1Volume, podDir: string): Promise<string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (volume.persistentVolumeClaim) return claimHostPath(core, namespace, volume.persistentVolumeClaim.claimName);
  if (volume.hostPath) {
    mkdirSync(volume.hostPath.path, { recursive: true });
    return volume.hostPath.path;
  }
  // emptyDir, ConfigMap, Secret, and kinds this agent does not fill (projected tokens, downwardAPI):
  // a directory of the pod's own.
  const local = join(podDir, 'volumes', volume.name);
  mkdirSync(local, { recursive: true });
  await fillFromObject(core, namespace, volume, local);
  return local;
}

function writeItems(
  dir: string,
  data: Record<string, string>,
  items: Array<{ key: string; path: string }> | undefined,
  decode: (value: string) => Buffer,
): void {
  const wanted = items ?? Object.keys(data).map((key) => ({ key, path: key }));
  for (const { key, path } of wanted) {
    const value = data[key];
    if (value === undefined) continue;
    const file = join(dir, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, decode(value));
  }
}

/** Resolves every volume the container mounts to a host directory. */
export async function resolveMounts(
  core: CoreV1Api,
  pod: V1Pod,
  container: V1Container,
  podDir: string,
): Promise<Mounts> {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const entries: Array<[string, string]> = [];
  let storagePath: string | undefined;
  for (const mount of container.volumeMounts ?? []) {
    const volume = volumes.get(mount.name);
    if (!volume) throw new ConfigError(`volume ${mount.name} is mounted but not defined`);
    let host = await volumeHostPath(core, pod, volume, podDir);
    if (mount.subPath) {
      host = join(host, mount.subPath);
      mkdirSync(host, { recursive: true });
    }
    entries.push([mount.mountPath.replace(/\/+$/, '') || '/', host]);
    if (volume.persistentVolumeClaim && storagePath === undefined) storagePath = host;
  }
  entries.sort((a, b) => b[0].length - a[0].length);
  return storagePath === undefined ? { entries } : { entries, storagePath };
}

/** `value` with a leading container path under a mount replaced by the host path. */
export function toHostPath(mounts: Mounts, value: string): string {
  for (const [mountPath, host] of mounts.entries) {
    if (value === mountPath) return host;
    if (value.startsWith(`${mountPath}/`)) return host + value.slice(mountPath.length);
    // --flag=/mount/path forms.
    const eq = value.indexOf('=');
    if (eq > 0) {
      const rest = value.slice(eq + 1);
      if (rest === mountPath || rest.startsWith(`${mountPath}/`)) {
        return value.slice(0, eq + 1) + host + rest.slice(mountPath.length);
      }
    }
  }
  return value;
}
