import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/openDatabase.js';
import { notFound } from './apiError.js';
import type { Company } from './auth.js';

export const API_BASE = '/api/v2';

export interface RouteRequest {
  db: Db;
  company: Company;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Handlers are synchronous: with better-sqlite3 each request's reads and writes never interleave. */
export type RouteHandler = (req: RouteRequest) => RouteResult;

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export const ok = (data: unknown): RouteResult => ({ status: 200, body: { data } });
export const created = (data: unknown): RouteResult => ({ status: 201, body: { data } });

/** A path id: a positive integer, else the resource cannot exist (404). */
export function idParam(params: Record<string, string>, name = 'id'): number {
  const raw = params[name] ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** Registers API routes and remembers their paths, so a known path with a wrong method is a 405. */
export class Router {
  private readonly known: { regex: RegExp; methods: Set<string> }[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly db: Db,
    private readonly companyOf: (request: FastifyRequest) => Company,
  ) {}

  get(path: string, handler: RouteHandler): void {
    this.add('GET', path, handler);
  }
  post(path: string, handler: RouteHandler): void {
    this.add('POST', path, handler);
  }
  patch(path: string, handler: RouteHandler): void {
    this.add('PATCH', path, handler);
  }
  put(path: string, handler: RouteHandler): void {
    this.add('PUT', path, handler);
  }
  delete(path: string, handler: RouteHandler): void {
    this.add('DELETE', path, handler);
  }

  /** Methods allowed on a path (HEAD comes with GET); empty when no route has this path. */
  allowedMethods(pathname: string): string[] {
    const methods = new Set<string>();
    for (const k of this.known) if (k.regex.test(pathname)) k.methods.forEach((m) => methods.add(m));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  }

  private add(method: Method, path: string, handler: RouteHandler): void {
    const url = `${API_BASE}${path}`;
    const source = `^${url.replace(/:[a-z_]+/g, '[^/]+')}$`;
    let entry = this.known.find((k) => k.regex.source === new RegExp(source).source);
    if (!entry) {
      entry = { regex: new RegExp(source), methods: new Set() };
      this.known.push(entry);
    }
    entry.methods.add(method);
    // Writes run in one transaction: all or nothing, and one commit for a 1000-item bulk.
    const run: RouteHandler = method === 'GET' ? handler : (req) => this.db.transaction(() => handler(req))();
    this.app.route({
      method,
      url,
      handler: async (request, reply) => {
        const result = run({
          db: this.db,
          company: this.companyOf(request),
          params: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body: request.body,
        });
        if (result.headers) void reply.headers(result.headers);
        return reply.code(result.status).send(result.body);
      },
    });
  }
}
