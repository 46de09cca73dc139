import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One held request (stage `request`: not forwarded yet) or answer (stage `answer`: read, not sent). */
export interface Gate {
  /** Resolves once a matching request arrived and is held at the gate. */
  reached: Promise<void>;
  release(): void;
}

export interface GateProxy {
  /** Base URL ending in `/api/v2`, forwarding to the target. */
  url: string;
  /**
   * Holds the next request matching `when` (path without `/api/v2` and query): `request` before
   * it is forwarded; `answer` after the target answered (the answer is the state at that instant,
   * sent when released).
   */
  gate(when: (method: string, path: string) => boolean, stage: 'request' | 'answer'): Gate;
  /**
   * Rewrites the JSON answer of every request matching `when` (another platform's shape, from the
   * sandbox's real answer); `null` stops rewriting.
   */
  rewrite(
    when: ((method: string, path: string) => boolean) | null,
    change?: (json: unknown) => unknown,
  ): void;
  /** Requests forwarded, as `METHOD /path?query`. */
  requests: string[];
  close(): Promise<void>;
}

interface Pending {
  when: (method: string, path: string) => boolean;
  stage: 'request' | 'answer';
  arrived: () => void;
  released: Promise<void>;
}

/**
 * A real HTTP proxy in front of an API v2 server (the sandbox) that can hold one request or one
 * answer until the test releases it (makes an interleaving of two pipelines deterministic), and
 * rewrite answers into another platform's shape.
 */
export async function startGateProxy(targetBaseUrl: string): Promise<GateProxy> {
  const target = new URL(targetBaseUrl).origin;
  const gates: Pending[] = [];
  let rewriter: {
    when: (method: string, path: string) => boolean;
    change: (json: unknown) => unknown;
  } | null = null;
  const requests: string[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://proxy');
        const method = req.method ?? 'GET';
        const path = url.pathname.replace(/^\/api\/v2/, '');
        requests.push(`${method} ${path}${url.search}`);
        const index = gates.findIndex((g) => g.when(method, path));
        const gate = index >= 0 ? gates.splice(index, 1)[0] : undefined;
        if (gate?.stage === 'request') {
          gate.arrived();
          await gate.released;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
            headers[name] = value;
        }
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${target}${req.url ?? '/'}`, { method, headers, body });
        let text = await answer.text();
        if (rewriter?.when(method, path) && text) text = JSON.stringify(rewriter.change(JSON.parse(text)));
        if (gate?.stage === 'answer') {
          gate.arrived();
          await gate.released;
        }
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        res.end(text);
      })().catch((error: unknown) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'proxy_failed', message: String(error) }));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/v2`,
    requests,
    gate(when, stage) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      gates.push({ when, stage, arrived, released });
      return { reached, release };
    },
    rewrite(when, change) {
      rewriter = when && change ? { when, change } : null;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
