import { Agent } from 'undici';
import type { Wire } from './wire.js';

/** undici's connection pool: at most `maxSockets` per origin, reused while `keepAlive`. */
export function createUndiciWire(options: {
  maxSockets: number;
  keepAlive: boolean;
  connectTimeoutMs: number;
}): Wire {
  const agent = new Agent({
    // HTTP/1.1 only (undici 8 would negotiate HTTP/2 over TLS): the socket bound, keep-alive and
    // the mapping of wire failures to "not sent" or "outcome unknown" are HTTP/1.1 semantics.
    allowH2: false,
    connections: options.maxSockets,
    pipelining: options.keepAlive ? 1 : 0,
    keepAliveTimeout: 4_000,
    connect: { timeout: options.connectTimeoutMs },
  });
  return {
    async request(request) {
      const response = await agent.request({
        origin: request.origin,
        path: request.path,
        method: request.method as 'GET',
        headers: request.headers,
        body: request.body,
        signal: request.signal,
        reset: !options.keepAlive,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      });
      return { statusCode: response.statusCode, headers: response.headers, text: await response.body.text() };
    },
    close: () => agent.close(),
  };
}
