// Kubeconfig files with everything embedded (no paths), so they keep working when copied and can be
// handed to kubectl, @kubernetes/client-node or the product's runner alike. Written as JSON, which
// is YAML too, so no YAML library is involved.
import { readFileSync, writeFileSync } from 'node:fs';

export type Credentials = { clientCertFile: string; clientKeyFile: string } | { token: string };

export interface KubeconfigSpec {
  server: string;
  caFile: string;
  user: string;
  credentials: Credentials;
  namespace?: string;
}

const b64File = (file: string) => readFileSync(file).toString('base64');

export function kubeconfigText(spec: KubeconfigSpec): string {
  const user =
    'token' in spec.credentials
      ? { token: spec.credentials.token }
      : {
          'client-certificate-data': b64File(spec.credentials.clientCertFile),
          'client-key-data': b64File(spec.credentials.clientKeyFile),
        };
  const context = { cluster: 'svc-test', user: spec.user, ...(spec.namespace ? { namespace: spec.namespace } : {}) };
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'svc-test', cluster: { server: spec.server, 'certificate-authority-data': b64File(spec.caFile) } },
      ],
      users: [{ name: spec.user, user }],
      contexts: [{ name: 'svc-test', context }],
      'current-context': 'svc-test',
    },
    null,
    2,
  );
}

export function writeKubeconfig(path: string, spec: KubeconfigSpec): string {
  writeFileSync(path, kubeconfigText(spec), { mode: 0o600 });
  return path;
}
