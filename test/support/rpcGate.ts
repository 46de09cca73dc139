import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A gate in front of a JSON-RPC server (Tryton): forwards every request while open; once down,
 * it answers nothing and drops each connection, as a stopped server behind a proxy would look to
 * the client. It counts the RPC methods it saw, so a test can go down after the Nth call of one
 * (deterministically, mid-run) and count how often the client still knocked.
 */
export interface RpcGate {
  /** The upstream URL with the gate's origin (same path). */
  url: string;
  /** Calls of each RPC method forwarded so far. */
  forwarded(method: string): number;
  /** Requests dropped while down (`method`: of that RPC method only). */
  dropped(method?: string): number;
  /** Goes down right after the answer to the `n`th call (from now) of `method` was forwarded. */
  downAfter(method: string, n: number): void;
  droppedMethods(): string[];
  down(): void;
  open(): void;
  close(): Promise<void>;
}

export async function startRpcGate(upstream: string): Promise<RpcGate> {
  const target = new URL(upstream);
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let isDown = false;
  const dropped: string[] = [];
  let trigger: { method: string; at: number } | null = null;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let method = '';
      try {
        method = String((JSON.parse(body.toString('utf8')) as { method?: unknown }).method ?? '');
      } catch {
        // not JSON-RPC: forwarded as it is
      }
      if (isDown) {
        dropped.push(method);
        req.socket.destroy();
        return;
      }
      const upstreamRequest = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (upstreamResponse) => {
          res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
          upstreamResponse.pipe(res);
          upstreamResponse.on('end', () => {
            counts.set(method, (counts.get(method) ?? 0) + 1);
            if (trigger && trigger.method === method && counts.get(method)! >= trigger.at) {
              trigger = null;
              isDown = true;
            }
          });
        },
      );
      upstreamRequest.on('error', () => req.socket.destroy());
      upstreamRequest.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(upstream);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    forwarded: (method) => counts.get(method) ?? 0,
    dropped: (method) => dropped.filter((m) => method === undefined || m === method).length,
    droppedMethods: () => [...dropped],
    downAfter(method, n) {
      trigger = { method, at: (counts.get(method) ?? 0) + n };
    },
    down() {
      isDown = true;
    },
    open() {
      isDown = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
