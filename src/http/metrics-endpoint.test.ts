import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { httpMetricsSource } from './metrics.js';
import { type MetricsSource, serveMetrics } from './metrics-endpoint.js';

/** A fastify app with two routes; each request goes through inject (the hooks run as for a socket). */
function app(source: MetricsSource | (() => Promise<MetricsSource>), maxPending?: number) {
  const a = Fastify();
  serveMetrics(a, source, maxPending);
  a.get('/status', async () => ({ ok: true }));
  a.get('/p/:name', async () => ({ ok: true }));
  return a;
}

/** The request counts of a /metrics text, without the durations (they differ run by run). */
const counts = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('svc_http_requests_total{'));

async function traffic(a: ReturnType<typeof app>): Promise<void> {
  for (const url of ['/status', '/status', '/p/one', '/p/two', '/nowhere']) await a.inject({ method: 'GET', url });
}

describe('serveMetrics', () => {
  it('a source made at the first scrape answers the same request counts as one made at start', async () => {
    const eager = app(httpMetricsSource(new Registry()));
    let made = 0;
    const lazy = app(async () => {
      made += 1;
      return httpMetricsSource(new Registry());
    });
    await traffic(eager);
    await traffic(lazy);
    expect(made).toBe(0);

    const first = await lazy.inject({ method: 'GET', url: '/metrics' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain('text/plain');
    const expected = counts((await eager.inject({ method: 'GET', url: '/metrics' })).body);
    expect(counts(first.body)).toEqual(expected);
    expect(expected).toContain('svc_http_requests_total{method="GET",route="/p/:name",status="200"} 2');
    expect(expected).toContain('svc_http_requests_total{method="GET",route="/status",status="200"} 2');
    expect(first.body).toContain('svc_http_request_duration_seconds_count{method="GET",route="/status"} 2');

    // Later scrapes see the earlier ones, as with the eager source; the source is made once.
    await lazy.inject({ method: 'GET', url: '/status' });
    await eager.inject({ method: 'GET', url: '/status' });
    const again = counts((await lazy.inject({ method: 'GET', url: '/metrics' })).body);
    expect(again).toEqual(counts((await eager.inject({ method: 'GET', url: '/metrics' })).body));
    expect(again).toContain('svc_http_requests_total{method="GET",route="/metrics",status="200"} 1');
    expect(made).toBe(1);
  });

  it('a source that fails to load fails the scrape, and the next scrape tries again with every count kept', async () => {
    let attempts = 0;
    const a = app(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('cannot load');
      return httpMetricsSource(new Registry());
    });
    await a.inject({ method: 'GET', url: '/status' });
    expect((await a.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(500);
    const second = await a.inject({ method: 'GET', url: '/metrics' });
    expect(second.statusCode).toBe(200);
    expect(counts(second.body)).toEqual([
      'svc_http_requests_total{method="GET",route="/status",status="200"} 1',
      'svc_http_requests_total{method="GET",route="/metrics",status="500"} 1',
    ]);
  });

  it('past the bound on kept requests, the source is made without a scrape', async () => {
    let made = 0;
    const a = app(async () => {
      made += 1;
      return httpMetricsSource(new Registry());
    }, 3);
    await a.inject({ method: 'GET', url: '/status' });
    await a.inject({ method: 'GET', url: '/status' });
    expect(made).toBe(0);
    await a.inject({ method: 'GET', url: '/status' });
    expect(made).toBe(1);
  });
});
