// Certificates and keys for the test cluster, made with openssl: one CA that signs the API server's
// serving certificate and every client certificate (the API server trusts it as --client-ca-file),
// and a key pair for signing service-account tokens.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClientCert {
  cert: string;
  key: string;
}

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * An ECDSA P-256 key: generated in milliseconds where RSA takes a good part of a second on this
 * machine, and accepted everywhere here (TLS, client certificates, ES256 service-account tokens).
 */
function genKey(file: string, cwd: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], cwd);
}

/** Makes the CA, the API server's serving certificate and the service-account key pair. */
export function makePki(dir: string): Pki {
  mkdirSync(dir, { recursive: true });
  const days = '3650';
  genKey('ca.key', dir);
  openssl(
    ['req', '-x509', '-new', '-nodes', '-key', 'ca.key', '-days', days, '-out', 'ca.crt'].concat([
      '-subj',
      '/CN=svc-test-cluster-ca',
    ]),
    dir,
  );
  // The serving certificate must name every address clients use: loopback, the in-cluster names and
  // the `kubernetes` Service's cluster IP (the first of the Service range), which pods of the real
  // node connect to with their in-cluster config (node/services.sh, start_apiserver_forward).
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,' +
        'DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local',
      '',
    ].join('\n'),
  );
  signCert(dir, 'server', '/CN=kube-apiserver', 'server.ext');
  genKey('sa.key', dir);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
  };
}

/**
 * A client certificate for user `cn` in `groups`. Kubernetes reads the user name from the CN and the
 * groups from the O attributes (system:masters makes a cluster admin regardless of RBAC).
 */
export function makeClientCert(pki: Pki, name: string, cn: string, groups: string[]): ClientCert {
  const ext = `${name}.ext`;
  writeFileSync(
    join(pki.dir, ext),
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  );
  const subject = `/CN=${cn}` + groups.map((g) => `/O=${g}`).join('');
  signCert(pki.dir, name, subject, ext);
  return { cert: join(pki.dir, `${name}.crt`), key: join(pki.dir, `${name}.key`) };
}

function signCert(dir: string, name: string, subject: string, extFile: string): void {
  genKey(`${name}.key`, dir);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
      '-days',
      '3650',
      '-extfile',
      extFile,
      '-out',
      `${name}.crt`,
    ]),
    dir,
  );
}
