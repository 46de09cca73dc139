import type { RequestLogEntry, Sandbox } from '../../src/sandbox/index.js';

export interface HttpResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
  headers: Headers;
}

export interface SandboxHttp {
  get(path: string, headers?: Record<string, string>): Promise<HttpResult>;
  post(path: string, body?: unknown): Promise<HttpResult>;
  patch(path: string, body?: unknown): Promise<HttpResult>;
  put(path: string, body?: unknown): Promise<HttpResult>;
  delete(path: string): Promise<HttpResult>;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
}

/** A tiny fetch wrapper for the sandbox tests: JSON in, JSON out, one company key. */
export function http(sandbox: Sandbox, key: keyof Sandbox['keys'] | null = 'primary'): SandboxHttp {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResult> => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${sandbox.keys[key]}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown) => call('POST', path, body),
    patch: (path: string, body?: unknown) => call('PATCH', path, body),
    put: (path: string, body?: unknown) => call('PUT', path, body),
    delete: (path: string) => call('DELETE', path),
    call,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The first request-log entry `match` accepts, already written or the next one to be. The sandbox
 * writes an entry once it is done with the request (answered, failed, dropped, or processed and
 * stalled), so this is the point to wait for instead of a sleep.
 */
export function nextEntry(
  sandbox: Sandbox,
  match: (entry: RequestLogEntry) => boolean,
): Promise<RequestLogEntry> {
  const found = sandbox.requestLog.entries().find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    const stop = sandbox.requestLog.onEntry((entry) => {
      if (!match(entry)) return;
      stop();
      resolve(entry);
    });
  });
}
