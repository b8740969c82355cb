// The chart on the real node (helm.test.ts): `helm install` with the images built here, every pod
// placed on the real node, and hostPath volumes bound in advance to the release's claims.
import { chmodSync, chownSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { inject } from 'vitest';
import { chartDir } from '../../chart/helm.js';
import { helmOk } from '../../chart/cluster.js';
import { NODE } from './world.js';

/** `repository` and `tag` of an image reference (the tag is after the last colon). */
export function splitImage(ref: string): { repository: string; tag: string } {
  const at = ref.lastIndexOf(':');
  return { repository: ref.slice(0, at), tag: ref.slice(at + 1) };
}

/**
 * `helm install` of the chart's defaults (split control plane, bundled PostgreSQL, API key, the
 * runner on its in-cluster config, pipelines at their Service DNS name) with what this node needs:
 * the images built here (never pulled: no registry), JSON logs, and every pod on the real node (the
 * node agent binds a pod that names no node, and runs it as a local process).
 */
export function installOnRealNode(namespace: string, release: string, extraSet: readonly string[] = []): void {
  const svc = splitImage(inject('svcImage'));
  const postgres = splitImage(inject('postgresImage'));
  const onNode = JSON.stringify({ 'kubernetes.io/hostname': NODE });
  helmOk([
    ...['install', release, chartDir, '--namespace', namespace],
    '--set',
    [
      `image.repository=${svc.repository}`,
      `image.tag=${svc.tag}`,
      'image.pullPolicy=Never',
      `postgresql.image.repository=${postgres.repository}`,
      `postgresql.image.tag=${postgres.tag}`,
      'postgresql.image.pullPolicy=Never',
      'logJson=true',
      ...extraSet,
    ].join(','),
    ...['controlPlane', 'postgresql', 'pipeline'].flatMap((key) => ['--set-json', `${key}.nodeSelector=${onNode}`]),
  ]);
}

/**
 * Volumes made in advance for claims, each bound to its claim by `claimRef`, its directory owned by
 * the uid of the pod that mounts it. The cluster's in-tree hostPath provisioner makes root-owned
 * 0750 directories, and the kubelet applies no fsGroup to hostPath volumes, so neither the database
 * (uid 999) nor a pipeline (uid 1000) could write to a provisioned one.
 */
export class BoundVolumes {
  private readonly made: { name: string; dir: string }[] = [];

  constructor(
    private readonly core: k8s.CoreV1Api,
    private readonly namespace: string,
  ) {}

  /** A volume for claim `claim` of the namespace (class `standard`, the default), owned by `uid`. */
  async make(claim: string, uid: number): Promise<void> {
    const name = `${this.namespace}-${claim}`;
    const dir = join(inject('clusterState'), 'bound-volumes', name);
    mkdirSync(dir, { recursive: true });
    chownSync(dir, uid, uid);
    chmodSync(dir, 0o700);
    this.made.push({ name, dir });
    await this.core.createPersistentVolume({
      body: {
        metadata: { name },
        spec: {
          capacity: { storage: '20Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'standard',
          persistentVolumeReclaimPolicy: 'Retain',
          claimRef: { namespace: this.namespace, name: claim },
          hostPath: { path: dir, type: 'Directory' },
        },
      },
    });
  }

  async removeAll(): Promise<void> {
    for (const { name, dir } of this.made) {
      await this.core.deletePersistentVolume({ name }).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
