import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getText } from './http-get.js';

// Real servers on loopback: each case is the server behaviour the runner meets from pipelines.

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('getText', () => {
  it('answers status and body, reusing one connection across requests', async () => {
    const ports = new Set<number>();
    const url = await serve((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.statusCode = req.url === '/busy' ? 503 : 200;
      res.end('{"ok":true}');
    });
    expect(await getText(`${url}/status`, 1_000)).toEqual({ status: 200, text: '{"ok":true}' });
    expect(await getText(`${url}/busy`, 1_000)).toEqual({ status: 503, text: '{"ok":true}' });
    expect(ports.size).toBe(1);
  });

  it('rejects when no answer comes within the timeout', async () => {
    const url = await serve(() => undefined);
    await expect(getText(url, 200)).rejects.toThrow(/no answer within 200 ms/);
  });

  it('rejects a body over 1 MiB', async () => {
    const url = await serve((_req, res) => res.end(Buffer.alloc(2 * 1024 * 1024, 'x')));
    await expect(getText(url, 5_000)).rejects.toThrow(/over 1048576 bytes/);
  });

  it('rejects when nothing listens', async () => {
    const url = await serve(() => undefined);
    await new Promise((r) => servers.pop()?.close(r));
    await expect(getText(url, 1_000)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('retries once on a new connection when the server drops a kept-alive one as it is reused', async () => {
    let served = 0;
    const url = await serve((req, res) => {
      served += 1;
      // The second request on the first connection: the connection goes away without an answer.
      if (served === 2) req.socket.destroy();
      else res.end(`answer ${served}`);
    });
    expect((await getText(url, 1_000)).text).toBe('answer 1');
    expect((await getText(url, 1_000)).text).toBe('answer 3');
  });
});
