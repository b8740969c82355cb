// vitest global setup of the `real-node` project (vitest.config.ts, part of `npm test`): a test cluster of
// its own (state dir and pod addresses apart from cluster:up's and the `cluster` project's) with the
// real node joined by node.sh, which also builds or reuses the images. Provides the admin kubeconfig,
// the state dir and the references of the svc and postgres images; stops everything afterwards (stopCluster takes the
// real node down first).
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startCluster, stopCluster } from '../control-plane/cluster.js';
import { missingPrerequisites } from './prerequisites.js';
import { scriptValues } from '../../support/script-values.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The svc image as the node's containerd knows it (docker.io/svc-local/svc:<hash>). */
    svcImage: string;
    /** The same svc with a label and a file more: a second release of it (docker.io/svc-local/svc-next:<hash>). */
    svcNextImage: string;
    /** The chart's PostgreSQL for this node (docker.io/svc-local/postgres:<hash>, images.sh). */
    postgresImage: string;
  }
}

const here = dirname(fileURLToPath(import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const missing = missingPrerequisites(process.getuid?.() ?? -1, process.env.PATH ?? '');
  if (missing.length > 0) {
    throw new Error(
      `the real-node tests (project real-node) need what this machine lacks:\n  ${missing.join('\n  ')}\n` +
        'apt-get install -y docker.io mmdebstrap containernetworking-plugins installs the packages (.ci/run does).',
    );
  }
  const stateDir = process.env.SVC_REAL_NODE_TEST_STATE ?? join(tmpdir(), 'svc-real-node-vitest');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // 127.212: apart from cluster:up's 127.10 and the cluster project's 127.12–127.211.
  const podSubnet = process.env.SVC_CLUSTER_POD_SUBNET ?? '127.212';
  const info = await startCluster({ stateDir, podSubnet, log });
  const out = scriptValues(join(here, 'node.sh'), ['up'], { ...process.env, SVC_CLUSTER_STATE: stateDir });
  const svcImage = out['SVC_IMAGE'];
  const svcNextImage = out['SVC_NEXT_IMAGE'];
  const postgresImage = out['POSTGRES_IMAGE'];
  if (!svcImage || !svcNextImage || !postgresImage)
    throw new Error(`node.sh up printed no SVC_IMAGE, SVC_NEXT_IMAGE or POSTGRES_IMAGE: ${JSON.stringify(out)}`);
  project.provide('kubeconfig', info.kubeconfig);
  project.provide('clusterState', info.stateDir);
  project.provide('svcImage', svcImage);
  project.provide('svcNextImage', svcNextImage);
  project.provide('postgresImage', postgresImage);
  return async () => {
    if (process.env.SVC_CLUSTER_KEEP === '1') {
      log(`cluster: kept running; stop with SVC_CLUSTER_STATE=${stateDir} npm run cluster:down`);
      return;
    }
    await stopCluster(stateDir, log);
  };
}
