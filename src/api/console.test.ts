import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConsole } from './console.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-console-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fastify app that answers what the console does not with a 404, as buildApp's not-found handler. */
function appWith(handler: NonNullable<ReturnType<typeof loadConsole>>) {
  const app = Fastify();
  app.get('/v0/config', async () => ({ version: 'x' }));
  app.setNotFoundHandler((request, reply) => {
    if (handler(request, reply)) return;
    void reply.status(404).send({ error_code: 'NotFound' });
  });
  return app;
}

describe('loadConsole', () => {
  it('is absent when the console was not built', () => {
    expect(loadConsole(join(dir, 'nothing-here'))).toBeUndefined();
  });

  it('serves index.html at / and content-named assets for a year; nothing else', async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    const handler = loadConsole(dir);
    if (!handler) throw new Error('no console loaded');
    const app = appWith(handler);

    const index = await app.inject({ method: 'GET', url: '/?x=1' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toBe('<div id="root"></div>');

    const script = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toContain('immutable');

    expect((await app.inject({ method: 'GET', url: '/assets/other.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/assets/../index.html' })).statusCode).not.toBe(500);
    expect((await app.inject({ method: 'POST', url: '/' })).statusCode).toBe(404);
    // The API's routes are the router's: the console never answers for them.
    expect((await app.inject({ method: 'GET', url: '/v0/config' })).json()).toEqual({ version: 'x' });
  });
});
