// Every manifest the chart renders, for the defaults and for each option, is accepted by the test
// cluster's API server (`kubectl apply --server-side --dry-run=server`: admission and validation,
// nothing stored). Apply, not create: a cluster-scoped object such as the Pipeline CRD may already be
// there, installed by another test file of the same cluster, and create refused it as AlreadyExists.
// A fresh namespace per case, so nothing is merged with objects of another case (and the namespaces
// of kubernetesRunner.allowedNamespaces, which must exist).
import * as k8s from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace } from '../cluster/helpers.js';
import { allowedNamespacesOf, CASES } from './cases.js';
import { kubectl } from './cluster.js';
import { chartDir, parseManifests, runHelm, valueArgs } from './helm.js';

describe('the API server accepts every rendered manifest', () => {
  const admin = adminConfig();
  const namespaces: string[] = [];
  afterAll(async () => {
    for (const ns of namespaces) await deleteNamespace(admin, ns);
  });

  it.each(CASES)('$name', async ({ values }) => {
    const namespace = await createNamespace(admin, 'chart-dry');
    namespaces.push(namespace);
    const core = admin.makeApiClient(k8s.CoreV1Api);
    for (const name of allowedNamespacesOf(values)) {
      await core.createNamespace({ body: { metadata: { name } } });
      namespaces.push(name);
    }
    const rendered = runHelm(['template', 'rel', chartDir, '--namespace', namespace, ...valueArgs(values)]);
    expect(rendered.status, rendered.stderr).toBe(0);
    const objects = parseManifests(rendered.stdout);
    // No -n: every object names its namespace (the release's, or an allowed one).
    const r = kubectl(
      [
        'apply',
        '--server-side',
        '--force-conflicts',
        '--field-manager=chart-dry-run',
        '--dry-run=server',
        '-o',
        'name',
        '-f',
        '-',
      ],
      rendered.stdout,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // One line per object: the server validated each of them.
    const lower = (kind: string) => kind.toLowerCase();
    expect(r.stdout.trim().split('\n').sort()).toEqual(
      objects
        .map(
          (o) =>
            `${lower(o.kind)}${o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : ''}/${o.metadata.name}`,
        )
        .sort(),
    );
    // Dry run: nothing was stored.
    expect((await core.listNamespacedConfigMap({ namespace })).items.map((c) => c.metadata?.name)).toEqual([
      'kube-root-ca.crt',
    ]);
  });
});
