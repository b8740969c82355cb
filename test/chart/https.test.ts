// https.secretRef (issue 19): the kubernetes.io/tls Secret mounted into the pod that serves the API,
// which then serves HTTPS (probes too); other components stay as they are.
import { describe, expect, it } from 'vitest';
import { loadApiServerConfig } from '../../src/config.js';
import { envOf, one, plainEnv, podSpec, render, type Container, type K8sObject, type PodSpec } from './helm.js';

interface Mounted extends PodSpec {
  containers: (Container & {
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
    readinessProbe?: { httpGet?: { path: string; port: string | number; scheme?: string } };
    livenessProbe?: { httpGet?: { path: string; port: string | number; scheme?: string } };
  })[];
}

const pod = (objs: K8sObject[], name: string) => podSpec(one(objs, 'Deployment', name)) as Mounted;

describe('helm template: https.secretRef', () => {
  it.each([
    [['https.secretRef=api-tls'], 'rel-svc-api-server'],
    [['https.secretRef=api-tls', 'controlPlane.mode=combined'], 'rel-svc-manager'],
  ])('%j: the API pod mounts the Secret, reads it and is probed over HTTPS', (set, name) => {
    const spec = pod(render({ set }), name);
    const c = spec.containers[0];
    if (!c) throw new Error('no container');
    expect(spec.volumes?.find((v) => v.name === 'tls')?.secret?.secretName).toBe('api-tls');
    expect(c.volumeMounts?.find((m) => m.name === 'tls')).toEqual({
      name: 'tls',
      mountPath: '/etc/svc/tls',
      readOnly: true,
    });
    expect(c.readinessProbe?.httpGet?.scheme).toBe('HTTPS');
    expect(c.livenessProbe?.httpGet?.scheme).toBe('HTTPS');
    expect(loadApiServerConfig({}, plainEnv(c))).toMatchObject({
      tlsCert: '/etc/svc/tls/tls.crt',
      tlsKey: '/etc/svc/tls/tls.key',
    });
  });

  it('leaves the other components, and everything by default, on plain HTTP', () => {
    const withTls = render({ set: ['https.secretRef=api-tls'] });
    for (const name of ['rel-svc-compiler-server', 'rel-svc-kubernetes-runner']) {
      const c = pod(withTls, name).containers[0];
      expect(c?.readinessProbe?.httpGet?.scheme).toBeUndefined();
      expect(envOf(c ?? { name: '', image: '' }).has('SVC_TLS_CERT')).toBe(false);
      expect(pod(withTls, name).volumes?.some((v) => v.name === 'tls')).toBe(false);
    }
    const api = pod(render(), 'rel-svc-api-server');
    expect(api.volumes?.some((v) => v.name === 'tls')).toBe(false);
    expect(envOf(api.containers[0] ?? { name: '', image: '' }).has('SVC_TLS_CERT')).toBe(false);
  });
});
