// Pipeline resources on the test cluster: the chart's CRD installed (cluster-scoped, once, as `helm
// install` would), and the admin's calls on Pipelines (what `kubectl apply/get/delete` send).
import * as k8s from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { serverSideApply } from '../../src/runner/backends/kubernetes/apply.js';
import { readRepoFile } from '../chart/helm.js';
// Not ../cluster/helpers.js: that one imports vitest, and the bench (bench/pipeline-resources.ts) uses this file.
import { waitFor } from '../cluster/control-plane/processes.js';

export const GROUP = { group: 'svc.dev', version: 'v1alpha1', plural: 'pipelines' } as const;
export type Json = Record<string, unknown>;

/** Applies the CRD from the chart's file (server-side apply) and waits until it is Established. */
export async function installCrd(admin: k8s.KubeConfig): Promise<void> {
  // Raw JSON, not the typed client: its model knows members as _enum and xKubernetes* and drops
  // them under their wire names, which lost every enum and CEL rule of the CRD. Server-side apply
  // also leaves the labels and annotations of a chart release that owns the CRD alone.
  const crd = load(readRepoFile('charts/svc/files/pipeline-crd.yaml')) as { metadata: { name: string } };
  const name = crd.metadata.name;
  await serverSideApply(admin, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd);
  const api = admin.makeApiClient(k8s.ApiextensionsV1Api);
  await waitFor('the Pipeline CRD Established', 30_000, async () => {
    const got = await api.readCustomResourceDefinition({ name });
    return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

export function pipelines(admin: k8s.KubeConfig, namespace: string) {
  const custom = admin.makeApiClient(k8s.CustomObjectsApi);
  const base = { ...GROUP, namespace };
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  return {
    create: (name: string, spec: Json) =>
      custom.createNamespacedCustomObject({
        ...base,
        body: { apiVersion: 'svc.dev/v1alpha1', kind: 'Pipeline', metadata: { name }, spec },
      }) as Promise<Json>,
    list: async () => ((await custom.listNamespacedCustomObject(base)) as { items: Json[] }).items,
    get: (name: string) => custom.getNamespacedCustomObject({ ...base, name }) as Promise<Json>,
    patchSpec: (name: string, spec: Json) =>
      custom.patchNamespacedCustomObject({ ...base, name, body: { spec } }, merge) as Promise<Json>,
    delete: (name: string) => custom.deleteNamespacedCustomObject({ ...base, name }) as Promise<Json>,
    /** `kubectl get pipelines`: the server's Table of the printer columns. */
    async table(): Promise<{ columns: string[]; rows: unknown[][] }> {
      const asTable = k8s.setHeaderOptions('Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io');
      const body = (await custom.listNamespacedCustomObject(base, asTable)) as {
        columnDefinitions: Array<{ name: string }>;
        rows: Array<{ cells: unknown[] }>;
      };
      return { columns: body.columnDefinitions.map((c) => c.name), rows: body.rows.map((r) => r.cells) };
    },
  };
}

export const conditionOf = (res: Json, type: string): Json | undefined =>
  ((res['status'] as Json | undefined)?.['conditions'] as Json[] | undefined)?.find((c) => c['type'] === type);
