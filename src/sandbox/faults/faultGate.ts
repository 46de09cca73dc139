import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '../http/auth.js';
import { InFlightMeter } from '../inFlightMeter.js';
import type { FaultKind, RequestLog } from '../requestLog.js';
import { faultApplies, NO_FAULTS, parseFaultSpec, type FaultSpec } from './faultSpec.js';
import { seededRandom } from './random.js';
import { RateLimiter } from './rateLimiter.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const BASE = '/api/v2';

/** Parsed JSON bodies, set by the app for the request log when bodies are recorded. */
export const recordedBodies = new WeakMap<IncomingMessage, unknown>();

/**
 * Sits between Node's HTTP server and the Fastify handler: writes the request log, counts the
 * requests in flight per route and injects the configured faults. Error and 429 faults answer without processing; drop and stall faults let the
 * request be processed and committed, then destroy the socket or never answer.
 */
export class FaultGate {
  private spec: FaultSpec = NO_FAULTS;
  private random: () => number;
  private limiter: RateLimiter | null = null;

  constructor(
    private readonly auth: Authenticator,
    private readonly log: RequestLog,
    private readonly recordBodies: boolean,
    private readonly seed: number,
    private readonly inFlight: InFlightMeter = new InFlightMeter(),
  ) {
    this.random = seededRandom(seed);
  }

  setFaults(spec: string | null): void {
    this.spec = parseFaultSpec(spec);
    this.random = seededRandom(this.seed);
    this.limiter = this.spec.rateLimit ? new RateLimiter(this.spec.rateLimit) : null;
  }

  handle(req: IncomingMessage, res: ServerResponse, next: Handler): void {
    const started = performance.now();
    const at = new Date().toISOString();
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = (req.method ?? 'GET').toUpperCase();
    let fault: FaultKind | null = null;
    let logged = false;
    const leave = this.inFlight.enter(`${method} ${url.pathname}`);
    const finish = (status: number | null): void => {
      leave();
      if (logged) return;
      logged = true;
      const entry = {
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status,
        key: this.auth.labelOf(req.headers),
        at,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        fault,
        ...(this.recordBodies && recordedBodies.has(req) ? { body: recordedBodies.get(req) } : {}),
      };
      this.log.add(entry);
    };
    res.on('finish', () => finish(res.statusCode));
    res.on('close', () => finish(null));

    const spec = this.spec;
    const relative = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : url.pathname;
    if (spec === NO_FAULTS || !faultApplies(spec, method, relative)) {
      next(req, res);
      return;
    }
    // Always draw the same number of values per request so one rate does not shift the others.
    const [latencyDraw, errorDraw, dropDraw, stallDraw, codeDraw] = [1, 2, 3, 4, 5].map(() =>
      this.random(),
    ) as [number, number, number, number, number];
    const run = (): void => {
      const wait = this.limiter?.take(rateKey(req)) ?? 0;
      if (wait > 0) {
        fault = 'rate_limited';
        send(
          res,
          429,
          { error: 'rate_limited', message: 'Too many requests.' },
          { 'retry-after': String(wait) },
        );
        return;
      }
      if (errorDraw < spec.errorRate) {
        fault = 'error';
        const status = codeDraw < 0.5 ? 500 : 503;
        const body =
          status === 500
            ? { error: 'server_error', message: 'Internal server error (injected fault).' }
            : { error: 'service_unavailable', message: 'Service unavailable (injected fault).' };
        send(res, status, body);
        return;
      }
      if (dropDraw < spec.dropRate) {
        fault = 'drop';
        cutShort(res, () => {
          finish(null);
          req.socket.destroy();
        });
      } else if (stallDraw < spec.stallRate) {
        fault = 'stall';
        swallow(res, () => finish(null));
      }
      next(req, res);
    };
    const delay = spec.latency
      ? spec.latency.min + Math.floor(latencyDraw * (spec.latency.max - spec.latency.min + 1))
      : 0;
    if (delay > 0) setTimeout(run, delay);
    else run();
  }
}

function rateKey(req: IncomingMessage): string {
  const auth = req.headers.authorization ?? req.headers['x-api-key'];
  return typeof auth === 'string' ? auth.replace(/^\s*bearer\s+/i, '').trim() : 'anonymous';
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * A drop mid-response: the handler runs and commits, then the status line, the headers (with the
 * full Content-Length) and the first half of the body go out, and `onCut` closes the connection.
 * The client sees an answer start and break off, as when a proxy or the network fails mid-way.
 */
function cutShort(res: ServerResponse, onCut: () => void): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (chunk: Buffer, cb: () => void) => boolean;
  const r = res as unknown as Record<string, unknown>;
  let head: unknown[] = [];
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown): void => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  r.writeHead = (...args: unknown[]) => {
    head = args;
    return res;
  };
  r.flushHeaders = () => undefined;
  r.write = (chunk: unknown) => {
    collect(chunk);
    return true;
  };
  r.end = (...args: unknown[]) => {
    const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    collect(args[0]);
    const body = Buffer.concat(chunks);
    writeHead(...(head.length ? head : [res.statusCode]));
    write(body.subarray(0, Math.floor(body.length / 2)), onCut);
    cb?.();
    return res;
  };
}

/** Makes the response write nothing: the handler runs and commits, then `onEnd` decides the socket's fate. */
function swallow(res: ServerResponse, onEnd: () => void): void {
  const r = res as unknown as Record<string, unknown>;
  r.writeHead = () => res;
  r.flushHeaders = () => undefined;
  r.write = () => true;
  r.end = (...args: unknown[]) => {
    const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    onEnd();
    cb?.();
    return res;
  };
}
