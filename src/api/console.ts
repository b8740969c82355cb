import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The web console (web/, built by `npm run build` into dist/web): a handful of static files, read
// once at start-up and answered from memory for GET / and GET /assets/…. They are served by the
// not-found handler rather than as routes, so they stay out of the OpenAPI document (which lists the
// API's routes) and cannot shadow an API path. The files hold no secrets: the console asks for the
// API key on its sign-in page and sends it on every /v0 call, which the API key check guards as usual.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

interface ConsoleFile {
  body: Buffer;
  type: string;
  /** Vite names assets after their content: they never change under the same URL. */
  immutable: boolean;
}

/** Answers a GET for a console file; false when the path is not one (the caller answers 404). */
export type ConsoleHandler = (request: FastifyRequest, reply: FastifyReply) => boolean;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The console's files under `dir` (dist/web); undefined when it was not built (no index.html). */
export function loadConsole(dir: string): ConsoleHandler | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, ConsoleFile>();
  for (const file of filesUnder(dir)) {
    const url = `/${relative(dir, file).split(sep).join('/')}`;
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    files.set(url, { body: readFileSync(file), type, immutable: url.startsWith('/assets/') });
  }
  return (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = request.url.split('?', 1)[0] ?? '';
    const file = files.get(path === '/' ? '/index.html' : path);
    if (!file) return false;
    void reply
      .type(file.type)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
    return true;
  };
}
