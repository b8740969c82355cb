// vitest global setup of the `cluster` project: builds or reuses the control-plane binaries, starts
// a cluster of its own (state dir and pod addresses apart from `npm run cluster:up`'s), hands the
// admin kubeconfig path to the tests through provide/inject, and stops everything afterwards.
//
// SVC_CLUSTER_KUBECONFIG=path runs the tests against an existing cluster instead (nothing started or
// stopped); SVC_CLUSTER_KEEP=1 leaves the started cluster running for a look after the tests.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  const stateDir = process.env.SVC_CLUSTER_TEST_STATE ?? join(tmpdir(), 'svc-test-cluster-vitest');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Two runs at once (say, two engineers on one machine) need their own state dir and pod subnet.
  const podSubnet = process.env.SVC_CLUSTER_POD_SUBNET ?? '127.11';
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
