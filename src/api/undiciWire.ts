import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import AgentModule from 'undici/lib/dispatcher/agent.js';
import requestModule from 'undici/lib/api/api-request.js';
import type { Wire } from './wire.js';

// undici's index loads all of undici (fetch, WebSocket, caches, mocks, proxy agents): about 220 ms
// of CPU in every process that sends a request (`run-once` included). Its connection pool and its
// request call alone are about 90 ms: the two modules the index itself builds `Agent` and
// `Dispatcher.prototype.request` from (undici has no "exports" map, so both paths are public files).
// Imported by their paths, dev/buildDist.ts bundles them (and what they require) into dist/.
const Agent = AgentModule as unknown as typeof UndiciAgent;
const request = requestModule as unknown as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

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
    async request(wire) {
      const response = await request.call(agent, {
        origin: wire.origin,
        path: wire.path,
        method: wire.method as 'GET',
        headers: wire.headers,
        body: wire.body,
        signal: wire.signal,
        reset: !options.keepAlive,
        headersTimeout: wire.timeoutMs,
        bodyTimeout: wire.timeoutMs,
      });
      return { statusCode: response.statusCode, headers: response.headers, text: await response.body.text() };
    },
    close: () => agent.close(),
  };
}
