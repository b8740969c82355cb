// vitest global setup of the `cluster` project: builds or reuses the control-plane binaries, starts
// a cluster of its own (state dir and pod addresses apart from `npm run cluster:up`'s), hands the
// admin kubeconfig path to the tests through provide/inject, and stops everything afterwards.
//
// SVC_CLUSTER_KUBECONFIG=path runs the tests against an existing cluster instead (nothing started or
// stopped); SVC_CLUSTER_KEEP=1 leaves the started cluster running for a look after the tests.
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startCluster, stopCluster } from './control-plane/cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    /** The cluster's state dir (pid files, logs): for tests that restart the node agent. */
    clusterState: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const existing = process.env.SVC_CLUSTER_KUBECONFIG;
  if (existing) {
    project.provide('kubeconfig', existing);
    // cluster:up writes admin.kubeconfig into its state dir.
    project.provide('clusterState', dirname(existing));
    return undefined;
  }
  // Two checkouts testing at once on one machine (two worktrees, two engineers) each get their own
  // state dir and pod subnet by default: a start stops whatever it finds in its state dir (a crashed
  // run's leftovers), so a shared default made one run stop the other's cluster. Runs of the same
  // checkout still share them, so a crashed run's cluster is cleaned up by the next.
  const checkout = createHash('sha256').update(resolve(project.config.root)).digest();
  const stateDir =
    process.env.SVC_CLUSTER_TEST_STATE ??
    join(tmpdir(), `svc-test-cluster-vitest-${checkout.toString('hex').slice(0, 8)}`);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // 127.12–127.211: apart from cluster:up's 127.10 (and 127.11, the old default).
  const podSubnet = process.env.SVC_CLUSTER_POD_SUBNET ?? `127.${12 + (checkout.readUInt16BE(0) % 200)}`;
  const info = await startCluster({ stateDir, podSubnet, log });
  project.provide('kubeconfig', info.kubeconfig);
  project.provide('clusterState', info.stateDir);
  return async () => {
    if (process.env.SVC_CLUSTER_KEEP === '1') {
      log(
        `cluster: kept running; export KUBECONFIG=${info.kubeconfig}; stop with SVC_CLUSTER_STATE=${stateDir} npm run cluster:down`,
      );
      return;
    }
    await stopCluster(stateDir, log);
  };
}
