// Object builders shared by the cluster tests. Images are names from images.json: the node agent
// maps them to local programs.
import type * as k8s from '@kubernetes/client-node';

export const HTTP_FIXTURE = 'svc-test/http-fixture:1';
export const EXIT_AT_ONCE = 'svc-test/exit-at-once:1';
/** Plain Node: the container's args are node's. */
export const NODE = 'svc-test/node:22';

/** The HTTP fixture as a container, with a fast readiness probe on /healthz. */
export function fixtureContainer(extraArgs: string[] = []): k8s.V1Container {
  return {
    name: 'server',
    image: HTTP_FIXTURE,
    args: ['--port=8080', ...extraArgs],
    ports: [{ name: 'http', containerPort: 8080 }],
    env: [{ name: 'GREETING', value: 'hello from $(POD_NAME)' }],
    readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1 },
  };
}

export function pod(name: string, containers: k8s.V1Container[], restartPolicy = 'Always'): k8s.V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: { containers, restartPolicy, terminationGracePeriodSeconds: 5 },
  };
}

/** A one-replica StatefulSet of the fixture with its storage from a volumeClaimTemplate at /data. */
export function statefulSet(name: string): k8s.V1StatefulSet {
  const container = fixtureContainer(['--storage=/data/pipeline']);
  container.env = [
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ...(container.env ?? []),
  ];
  container.volumeMounts = [{ name: 'storage', mountPath: '/data' }];
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [container], terminationGracePeriodSeconds: 10 },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'storage' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '16Mi' } } },
        },
      ],
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
  };
}

export interface Info {
  pid: number;
  host: string;
  port: number;
  storage?: string;
  cwd: string;
  greeting?: string;
  cwdFiles: string[];
}

/** GET /info from the fixture at the pod's address (loopback only). */
export async function fixtureInfo(podIP: string): Promise<Info> {
  const res = await fetch(`http://${podIP}:8080/info`);
  if (!res.ok) throw new Error(`GET /info: HTTP ${res.status}`);
  return (await res.json()) as Info;
}
