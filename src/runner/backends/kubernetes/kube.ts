import { existsSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import type { RunnerMetrics } from '../../metrics.js';
import { PooledKubeConfig } from './pooled-config.js';

// The runner's connection to the API server: one KubeConfig, typed clients, the control plane's
// namespace, and a counter of every request by verb (the runner's RBAC and its steady-state cost are
// both visible in /metrics).

const IN_CLUSTER_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export interface Kube {
  config: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  coordination: k8s.CoordinationV1Api;
  objects: k8s.KubernetesObjectApi;
  /** The control plane's namespace: pipelines without resources.namespace run here. */
  namespace: string;
  /** Runs one API request and counts it. */
  call<T>(verb: string, resource: string, request: () => Promise<T>): Promise<T>;
}

export function connect(opts: { kubeconfig?: string; namespace?: string; metrics: RunnerMetrics }): Kube {
  const config = new PooledKubeConfig();
  const inCluster = !opts.kubeconfig && existsSync(IN_CLUSTER_NAMESPACE);
  if (opts.kubeconfig) config.loadFromFile(opts.kubeconfig);
  else if (inCluster) config.loadFromCluster();
  else config.loadFromDefault();
  const namespace =
    opts.namespace ??
    config.getContextObject(config.getCurrentContext())?.namespace ??
    (inCluster ? readFileSync(IN_CLUSTER_NAMESPACE, 'utf8').trim() : 'default');
  return {
    config,
    core: config.makeApiClient(k8s.CoreV1Api),
    apps: config.makeApiClient(k8s.AppsV1Api),
    coordination: config.makeApiClient(k8s.CoordinationV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(config),
    namespace,
    call(verb, resource, request) {
      opts.metrics.apiRequests.inc({ verb, resource });
      return request();
    },
  };
}

/** The HTTP status of a failed API request (undefined for other failures). */
export function statusOf(error: unknown): number | undefined {
  return error instanceof k8s.ApiException ? error.code : undefined;
}

/** Runs a request whose 404 means "already gone": true when it was gone. */
export async function ignoreNotFound(request: Promise<unknown>): Promise<boolean> {
  try {
    await request;
    return false;
  } catch (error) {
    if (statusOf(error) === 404) return true;
    throw error;
  }
}

/** The API server's message of a failed request, for logs and error details. */
export function apiMessage(error: unknown): string {
  if (error instanceof k8s.ApiException) {
    const body = error.body as unknown;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const parsed = JSON.parse(text) as { message?: string };
      return parsed.message ?? text;
    } catch {
      return text;
    }
  }
  return error instanceof Error ? error.message : String(error);
}
