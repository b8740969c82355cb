// Every manifest the chart renders, for the defaults and for each option, is accepted by the test
// cluster's API server (`kubectl create --dry-run=server`: admission and validation, nothing stored).
// A fresh namespace per case, so nothing is merged with objects of another case.
import * as k8s from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace } from '../cluster/helpers.js';
import { CASES } from './cases.js';
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
    const rendered = runHelm(['template', 'rel', chartDir, '--namespace', namespace, ...valueArgs(values)]);
    expect(rendered.status, rendered.stderr).toBe(0);
    const objects = parseManifests(rendered.stdout);
    const r = kubectl(['create', '--dry-run=server', '-n', namespace, '-o', 'name', '-f', '-'], rendered.stdout);
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
    const core = admin.makeApiClient(k8s.CoreV1Api);
    expect((await core.listNamespacedConfigMap({ namespace })).items.map((c) => c.metadata?.name)).toEqual([
      'kube-root-ca.crt',
    ]);
  });
});
