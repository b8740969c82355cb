// The test cluster's node: a kubelet stand-in that runs each pod's containers as local processes,
// each pod on its own loopback address. It also binds Pending pods to its node (the cluster has no
// scheduler). It keeps nothing the API server does not have, so restarting it converges.
//
// Env: KUBECONFIG (required), SVC_AGENT_NODE_NAME (default svc-test-node), SVC_AGENT_POD_SUBNET
// (first two octets of pod addresses, default 127.10), SVC_AGENT_STATE_DIR (pod dirs and logs),
// SVC_AGENT_IMAGES (image config, default images.json beside this file), SVC_AGENT_BACKOFF_MS
// (first crash-loop back-off, default 10000, doubling up to SVC_AGENT_BACKOFF_MAX_MS, default 300000).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../src/runner/backends/kubernetes/pooled-config.js';
import { findMarked, terminate, waitFor } from './control-plane/processes.js';
import { agentMarker, NODE_MARKER_ENV } from './agent/env.js';
import { loadImageConfig } from './agent/images.js';
import { NodeHeartbeat } from './agent/node.js';
import { PodWorker, type AgentContext } from './agent/pod-worker.js';
import { Scheduler } from './agent/scheduler.js';

const env = process.env;
const nodeName = env.SVC_AGENT_NODE_NAME ?? 'svc-test-node';
const subnet = env.SVC_AGENT_POD_SUBNET ?? '127.10';
const stateDir = env.SVC_AGENT_STATE_DIR ?? join(tmpdir(), `svc-node-agent-${nodeName}`);
const imagesFile = env.SVC_AGENT_IMAGES ?? resolve(dirname(fileURLToPath(import.meta.url)), 'images.json');
const log = (message: string) => process.stdout.write(`${new Date().toISOString()} ${message}\n`);

// One connection pool for all requests, as the runner has: the client opens a TLS connection per
// request otherwise, which was a third of the agent's CPU in a 200-pod wave.
const kc = new PooledKubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
mkdirSync(stateDir, { recursive: true });

// Processes of a previous agent for this node: their pods are re-run from the API's state.
const orphans = findMarked(`${NODE_MARKER_ENV}=${agentMarker(nodeName, stateDir)}`);
if (orphans.length > 0) {
  log(`stopping ${orphans.length} process(es) left by a previous agent`);
  await terminate(orphans, 5_000);
}

const workers = new Map<string, PodWorker>();
const latest = new Map<string, k8s.V1Pod>();
const busy = new Set<string>();
const dirty = new Set<string>();

function allocateIP(pod: k8s.V1Pod): string {
  if (pod.spec?.hostNetwork) return '127.0.0.1';
  const used = new Set<string>();
  for (const w of workers.values()) if (w.podIP) used.add(w.podIP);
  for (const p of latest.values()) if (p.status?.podIP) used.add(p.status.podIP);
  // Skip x.y.0.0/24 .0 and .1 and every .0/.255, so no address looks like a network or broadcast.
  for (let i = 2; i < 65_535; i++) {
    const ip = `${subnet}.${i >> 8}.${i & 255}`;
    if ((i & 255) === 0 || (i & 255) === 255 || used.has(ip)) continue;
    return ip;
  }
  throw new Error('no free pod address');
}

const ctx: AgentContext = {
  core,
  nodeName,
  images: loadImageConfig(imagesFile),
  stateDir,
  backoffBaseMs: Number(env.SVC_AGENT_BACKOFF_MS ?? 10_000),
  backoffMaxMs: Number(env.SVC_AGENT_BACKOFF_MAX_MS ?? 300_000),
  allocateIP,
  kick: (uid) => enqueue(uid),
  log,
};
const scheduler = new Scheduler(core, nodeName, log);

/** Syncs one pod at a time per uid; a kick while busy runs one more sync after the current one. */
function enqueue(uid: string): void {
  if (busy.has(uid)) {
    dirty.add(uid);
    return;
  }
  busy.add(uid);
  void (async () => {
    do {
      dirty.delete(uid);
      await syncPod(uid).catch((err: unknown) => log(`pod ${uid}: sync failed: ${describe(err)}`));
    } while (dirty.has(uid));
    busy.delete(uid);
  })();
}

function describe(err: unknown): string {
  if (err instanceof k8s.ApiException) return `HTTP ${err.code}: ${JSON.stringify(err.body)}`;
  return err instanceof Error ? err.message : String(err);
}

async function syncPod(uid: string): Promise<void> {
  const pod = latest.get(uid);
  const worker = workers.get(uid);
  if (!pod) {
    // Deleted by someone else (grace period 0): only the processes are left to stop.
    if (worker) {
      await worker.shutdown(5_000);
      workers.delete(uid);
      log(`pod ${uid}: gone from the API, processes stopped`);
    }
    return;
  }
  if (!pod.spec?.nodeName) {
    if (!pod.metadata?.deletionTimestamp) await scheduler.bind(pod);
    return;
  }
  if (pod.spec.nodeName !== nodeName) return;
  const w = worker ?? new PodWorker(ctx, uid);
  workers.set(uid, w);
  if (!(await w.sync(pod))) {
    workers.delete(uid);
    latest.delete(uid);
  }
}

function observe(pod: k8s.V1Pod): void {
  const uid = pod.metadata?.uid;
  if (!uid) return;
  latest.set(uid, pod);
  enqueue(uid);
}

const informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
informer.on('add', observe);
informer.on('update', observe);
informer.on('delete', (pod) => {
  const uid = pod.metadata?.uid;
  if (!uid) return;
  latest.delete(uid);
  enqueue(uid);
});
informer.on('error', (err: unknown) => {
  log(`pod watch failed, restarting: ${describe(err)}`);
  setTimeout(() => void informer.start().catch((e: unknown) => log(`pod watch restart failed: ${describe(e)}`)), 1000);
});

const heartbeat = new NodeHeartbeat(kc, nodeName, log);
// Started together with the API server: register the node as soon as it answers.
await waitFor('the API server to register the node', 120_000, async () => {
  await heartbeat.start();
  return true;
});
await informer.start();
log(`node agent for ${nodeName} running (pods on ${subnet}.x.y, images from ${imagesFile})`);

// Time-driven transitions (back-off expiry, ImagePullBackOff) and missed events: resync every second.
const resync = setInterval(() => {
  for (const uid of new Set([...latest.keys(), ...workers.keys()])) enqueue(uid);
}, 1000);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping pods' processes`);
  clearInterval(resync);
  heartbeat.stop();
  await informer.stop().catch(() => undefined);
  await Promise.all([...workers.values()].map((w) => w.shutdown(5_000)));
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
