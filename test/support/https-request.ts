import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';

// One HTTPS request that trusts the given CA only (fetch takes no per-request CA without undici).

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
