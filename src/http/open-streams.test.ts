import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { closeGracefully } from './open-streams.js';

// A real listening server and fetch's keep-alive connections: what a close waits for is only seen
// on sockets, not through inject.

const apps: Array<ReturnType<typeof Fastify>> = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

/** /stream never ends by itself (registered to end at close); /slow answers after `slowMs`. */
async function serve(slowMs: number) {
  const app = Fastify();
  apps.push(app);
  const streams = closeGracefully(app);
  app.get('/stream', async (_request, reply) => {
    const out = new PassThrough();
    out.write('first\n');
    // Ends a moment after it is asked to, as a forwarded stream does after the line under way:
    // after the server's close has begun.
    const forget = streams.add(() => setTimeout(() => out.end('last\n'), 100));
    out.once('close', forget);
    return reply.type('text/plain').send(out);
  });
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return { done: true };
  });
  app.get('/fast', async () => ({ fast: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

const timed = async (p: Promise<unknown>): Promise<number> => {
  const t0 = Date.now();
  await p;
  return Date.now() - t0;
};

describe('closeGracefully', () => {
  it('ends an open stream cleanly at close, and the close does not wait for its connection', async () => {
    const { app, url } = await serve(0);
    const res = await fetch(`${url}/stream`);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    // Another connection, kept alive and idle: the close does not wait for it either.
    expect(await (await fetch(`${url}/fast`)).json()).toEqual({ fast: true });
    const closing = timed(app.close());
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe('last\n');
    // Without closing the connections that turn idle after it began, this took fastify's 72 s.
    expect(await closing).toBeLessThan(2_000);
  });

  it('lets a request in flight finish, then closes its connection at once', async () => {
    const { app, url } = await serve(500);
    const slow = fetch(`${url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = timed(app.close());
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ done: true });
    expect(await closing).toBeLessThan(2_000);
  });

  it('does not wait for a connection that never carried a request', async () => {
    const { app, url } = await serve(0);
    // What fetch leaves behind when it aborts a stream: a fresh connection in its pool, unused.
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    expect(await timed(app.close())).toBeLessThan(2_000);
    await closed;
  });

  it('ends a stream opened after the close began (its request arrived before)', async () => {
    // Held in the handler until the close has begun: then registered, and ended straight away.
    const held = Fastify();
    apps.push(held);
    const streams = closeGracefully(held);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    held.get('/late', async (_request, reply) => {
      await released;
      const out = new PassThrough();
      const forget = streams.add(() => {
        forget();
        out.end('ended\n');
      });
      return reply.type('text/plain').send(out);
    });
    const lateUrl = await held.listen({ host: '127.0.0.1', port: 0 });
    const late = fetch(`${lateUrl}/late`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = held.close();
    release();
    expect(await (await late).text()).toBe('ended\n');
    await closing;
  });
});
