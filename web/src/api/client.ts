import type { ErrorBody } from './types.ts';

/** An answer of the API that is not 2xx, with its error body when it has one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.message ?? `HTTP ${status}`);
  }
  get code(): string | undefined {
    return this.body?.error_code;
  }
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | boolean | number | undefined>;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  signal?: AbortSignal;
}

function isErrorBody(v: unknown): v is ErrorBody {
  return typeof v === 'object' && v !== null && 'error_code' in v && 'message' in v;
}

/**
 * The console's only way to the server: the public /v0 endpoints, with the API key (when one is set)
 * as a bearer token. A 401 calls `onUnauthorized` so the app can show its sign-in page.
 */
export class Api {
  constructor(
    private readonly key: string | undefined,
    private readonly onUnauthorized: () => void,
  ) {}

  url(path: string, query: RequestOptions['query'] = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    const s = q.toString();
    return `${path}${s ? `?${s}` : ''}`;
  }

  /** The raw response of a 2xx answer; ApiError otherwise. */
  async fetch(path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.key) headers['authorization'] = `Bearer ${this.key}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] = 'application/json';
    } else if (opts.contentType) headers['content-type'] = opts.contentType;
    const res = await fetch(this.url(path, opts.query), {
      method: opts.method ?? 'GET',
      headers,
      ...(body !== undefined && { body }),
      ...(opts.signal && { signal: opts.signal }),
    });
    if (res.ok) return res;
    if (res.status === 401) this.onUnauthorized();
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    throw new ApiError(res.status, isErrorBody(parsed) ? parsed : undefined);
  }

  /** A JSON answer (an empty body is undefined). */
  async json<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const text = await (await this.fetch(path, opts)).text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async text(path: string, opts: RequestOptions = {}): Promise<string> {
    return (await this.fetch(path, opts)).text();
  }
}

export const pipelinePath = (name: string, rest = ''): string => `/v0/pipelines/${encodeURIComponent(name)}${rest}`;
