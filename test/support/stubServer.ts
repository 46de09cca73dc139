import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface StubRequest {
  method: string;
  /** Path without the `/api/v2` prefix and without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type StubReply =
  | { status?: number; headers?: Record<string, string>; json?: unknown; text?: string }
  /** Destroys the socket without answering (a connection lost after the request arrived). */
  | 'drop'
  /** Never answers. */
  | 'stall';

export type StubHandler = (request: StubRequest) => StubReply | Promise<StubReply>;

export interface StubServer {
  /** Base URL ending in `/api/v2`. */
  url: string;
  requests: StubRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Replaces the handler (the default answers 404). */
  handle(handler: StubHandler): void;
  close(): Promise<void>;
}

/** A tiny real HTTP server on a random loopback port, answering whatever a test scripts. */
export async function startStubServer(handler?: StubHandler): Promise<StubServer> {
  let current: StubHandler =
    handler ?? (() => ({ status: 404, json: { error: 'not_found', message: 'no route' } }));
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const stalled = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        body = text; // not JSON: kept as text for the test to look at
      }
      const request: StubRequest = {
        method: req.method ?? 'GET',
        path: url.pathname.replace(/^\/api\/v2/, ''),
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      requests.push(request);
      // A handler that throws answers 500 (never an unhandled rejection in the test process).
      void Promise.resolve()
        .then(() => current(request))
        .catch((error: unknown): StubReply => ({
          status: 500,
          json: { error: 'stub_handler_failed', message: String(error) },
        }))
        .then((reply) => {
          if (reply === 'drop') return req.socket.destroy();
          if (reply === 'stall') return void stalled.add(res);
          const payload = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          res.end(payload);
        });
    });
  });
  server.on('connection', (socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/v2`,
    requests,
    connections: () => accepted,
    handle(next) {
      current = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      stalled.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `{ data, meta }` for one page of `records`. */
export function pageOf<T>(
  records: T[],
  page: number,
  perPage: number,
): { data: T[]; meta: Record<string, number> } {
  const lastPage = Math.max(1, Math.ceil(records.length / perPage));
  return {
    data: records.slice((page - 1) * perPage, page * perPage),
    meta: { current_page: page, per_page: perPage, total: records.length, last_page: lastPage },
  };
}
