import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer } from '../../src/commands/api-server.js';
import type { RunningComponent } from '../../src/commands/component.js';
import { ConfigError, loadApiServerConfig } from '../../src/config.js';
import { httpsRequest, selfSignedCert } from '../support/https-request.js';
import { silentLogger } from '../support/silent-logger.js';

// HTTPS for the API (issue 19; the chart's https.secretRef mounts the Secret's tls.crt and tls.key):
// `svc api-server --tls-cert --tls-key` serves HTTPS only, with a self-signed certificate made here.

describe('the API over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const { cert, key } = selfSignedCert(dir);
  let api: RunningComponent;

  beforeAll(async () => {
    const config = loadApiServerConfig({ port: '0', dataDir: join(dir, 'data'), tlsCert: cert, tlsKey: key }, {});
    api = await startApiServer(config, silentLogger('manager'));
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers HTTPS with the given certificate and logs an https:// URL', async () => {
    expect(api.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await httpsRequest(`${api.url}/v0/pipelines`, { ca: readFileSync(cert) });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual([]);
    expect(r.fingerprint).toBe(new X509Certificate(readFileSync(cert)).fingerprint256);
  });

  it('refuses a client that does not trust the certificate, and plain HTTP', async () => {
    await expect(httpsRequest(`${api.url}/v0/pipelines`, { ca: Buffer.from('') })).rejects.toThrow();
    const plain = await fetch(api.url.replace('https:', 'http:') + '/v0/pipelines').catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(Error);
  });

  it('needs both the certificate and the key', () => {
    expect(() => loadApiServerConfig({ tlsCert: cert }, {})).toThrow(ConfigError);
    expect(() => loadApiServerConfig({ tlsCert: cert }, {})).toThrow('--tls-key (or SVC_TLS_KEY)');
    expect(() => loadApiServerConfig({}, { SVC_TLS_KEY: key })).toThrow('--tls-cert (or SVC_TLS_CERT)');
  });
});
