import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/runner/backends/kubernetes/kube.js';
import { createRunnerMetrics } from '../../src/runner/metrics.js';
import { adminConfig, createNamespace, deleteNamespace, serviceAccountAccess } from '../cluster/helpers.js';
import { chartRunnerRules } from './harness.js';

// The runner's API requests share pooled connections (pooled-config.ts PooledKubeConfig): the client library
// alone opens a new TLS connection for every request. Counted for real: this process's TCP
// connections to the API server's port, from /proc/net/tcp and tcp6.

const admin = adminConfig();
let namespace: string;
beforeAll(async () => {
  namespace = await createNamespace(admin, 'connections');
});
afterAll(async () => deleteNamespace(admin, namespace));

/** Sockets of this process (by inode) connected to `port`, established or closing. */
function connectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const remote = cols[2];
      if (!remote || Number.parseInt(remote.split(':')[1] ?? '', 16) !== port) continue;
      if (cols[9] && cols[9] !== '0') inodes.add(cols[9]);
    }
  }
  const own = new Set<string>();
  for (const fd of socketLinks()) {
    const m = /^socket:\[(\d+)\]$/.exec(fd);
    if (m?.[1]) own.add(m[1]);
  }
  return [...inodes].filter((i) => own.has(i)).length;
}

/** What this process's file descriptors point at ("socket:[inode]" for sockets). */
function socketLinks(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

describe('runner API connections', { timeout: 120_000 }, () => {
  it('thirty requests go over at most a couple of connections', async () => {
    const access = await serviceAccountAccess(admin, { namespace, name: 'runner', rules: chartRunnerRules() });
    const kube = connect({
      kubeconfig: access.kubeconfigPath,
      namespace,
      metrics: createRunnerMetrics(new Registry()),
    });
    const port = Number(new URL(kube.config.getCurrentCluster()?.server ?? '').port);
    const before = connectionsTo(port);
    for (let i = 0; i < 30; i += 1) {
      await kube.call('list', 'pods', () => kube.core.listNamespacedPod({ namespace }));
    }
    const opened = connectionsTo(port) - before;
    expect(opened).toBeGreaterThanOrEqual(1);
    expect(opened).toBeLessThanOrEqual(2);
  });
});
