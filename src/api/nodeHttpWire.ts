import type { IncomingMessage } from 'node:http';
import type { Wire, WireResponse } from './wire.js';

/**
 * One node:http(s) connection per request, closed after it: for a command that asks once or
 * twice (`erp-sync check`), which then starts without undici (about 110 modules). Same protocol
 * as the pool (HTTP/1.1, the system's CAs and NODE_EXTRA_CA_CERTS, no proxy from the environment).
 * The module is taken with process.getBuiltinModule, not imported: an ES import of node:http
 * reads every export for its namespace, and some are getters that load Node's own copy of undici
 * (about 30 ms of CPU, the cost this wire is there to avoid). node:https (TLS) only for https.
 */
export function createNodeHttpWire(): Wire {
  return {
    request: (request) =>
      new Promise<WireResponse>((resolve, reject) => {
        const origin = new URL(request.origin);
        const send =
          origin.protocol === 'https:'
            ? process.getBuiltinModule('node:https').request
            : process.getBuiltinModule('node:http').request;
        const outgoing = send(
          {
            protocol: origin.protocol,
            hostname: origin.hostname.replace(/^\[(.*)\]$/, '$1'),
            port: origin.port,
            path: request.path,
            method: request.method,
            headers: request.headers,
            agent: false,
            signal: request.signal,
            timeout: request.timeoutMs,
          },
          (response: IncomingMessage) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('close', () => {
              if (!response.complete) reject(new Error('the connection closed before the whole body came'));
            });
            response.on('end', () =>
              resolve({
                statusCode: response.statusCode ?? 0,
                headers: response.headers,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        outgoing.on('timeout', () => outgoing.destroy(new Error(`no data for ${request.timeoutMs} ms`)));
        outgoing.on('error', reject);
        outgoing.end(request.body ?? undefined);
      }),
    close: async () => undefined,
  };
}
