import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

// HTTPS for tests: a self-signed certificate made at test time, and one request that trusts the given
// CA only (fetch takes no per-request CA without undici).

/** A self-signed P-256 certificate for 127.0.0.1 (one day), as tls.crt and tls.key in `dir`. */
export function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
  const subject = ['-subj', '/CN=svc-test', '-addext', 'subjectAltName=IP:127.0.0.1'];
  execFileSync('openssl', [...args, ...subject, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

export interface HttpsAnswer {
  status: number;
  text: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
}

export interface HttpsInit {
  ca: Buffer | string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Accept any host name in the certificate (a pod IP unknown when the certificate was made); the chain is still checked. */
  anyHostName?: boolean;
}

export function httpsRequest(url: string, init: HttpsInit): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: init.ca,
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        ...(init.anyHostName && { checkServerIdentity: () => undefined }),
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, fingerprint }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
