import { Agent } from 'undici';
import type { Logger } from '../../logger.js';
import { TrytonError } from './TrytonError.js';
import { errorFromFailure, errorFromRpc, errorFromStatus } from './trytonErrors.js';
import { decodeValue, encodeValue } from './trytonValues.js';

export interface TrytonClientOptions {
  /** Server URL, e.g. http://127.0.0.1:8000/ */
  url: string;
  database: string;
  user: string;
  password: string;
  /** Sent with every model call (Tryton needs at least the company). */
  context?: Record<string, unknown>;
  language?: string;
  timeoutMs?: number;
  logger: Logger;
}

type Reply = { id?: number; result?: unknown; error?: unknown };

/**
 * JSON-RPC client for Tryton 6.0: session login, one fresh login when a session is refused
 * (401), the context appended to every model call, typed values converted both ways, and
 * failures as TrytonError of the right kind. The password is kept private and never logged.
 */
export class TrytonClient {
  readonly #origin: string;
  readonly #path: string;
  readonly #url: string;
  readonly #user: string;
  readonly #password: string;
  readonly #language: string;
  readonly #timeoutMs: number;
  readonly #agent: Agent;
  readonly #log: Logger;
  #context: Record<string, unknown>;
  #session: string | null = null;
  #login: Promise<void> | null = null;
  #id = 0;

  constructor(options: TrytonClientOptions) {
    const base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.#origin = base.origin;
    this.#path = `${base.pathname}${encodeURIComponent(options.database)}/`;
    this.#url = `${base.origin}${this.#path}`;
    this.#user = options.user;
    this.#password = options.password;
    this.#language = options.language ?? 'en';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#context = { ...(options.context ?? {}) };
    this.#log = options.logger;
    // HTTP/1.1 only, as the API client (undici 8 would negotiate HTTP/2 with a TLS proxy that offers it).
    this.#agent = new Agent({ allowH2: false, connections: 4, keepAliveTimeout: 10_000 });
  }

  /** The JSON-RPC endpoint (no credentials in it). */
  get endpoint(): string {
    return this.#url;
  }

  get context(): Readonly<Record<string, unknown>> {
    return this.#context;
  }

  /** Logs in (again): a new session; concurrent callers share one login. */
  login(): Promise<void> {
    this.#login ??= this.#doLogin().finally(() => (this.#login = null));
    return this.#login;
  }

  /** The user's preferences (company, language, ...) merged under the configured context. */
  async loadPreferences(): Promise<Record<string, unknown>> {
    const prefs = (await this.call('model.res.user.get_preferences', [true, {}])) as Record<string, unknown>;
    this.#context = { ...pick(prefs, ['company', 'language', 'employee']), ...this.#context };
    return prefs;
  }

  /** `model.<model>.<method>(...args, context)`; `context` is merged over the client's. */
  model<T = unknown>(
    model: string,
    method: string,
    args: unknown[],
    context?: Record<string, unknown>,
  ): Promise<T> {
    return this.call(`model.${model}.${method}`, [...args, { ...this.#context, ...context }]) as Promise<T>;
  }

  /** Any method with a session; a refused session triggers one fresh login and one retry. */
  async call(method: string, params: unknown[]): Promise<unknown> {
    if (this.#session === null) await this.login();
    try {
      return await this.#send(method, params, this.#session);
    } catch (error) {
      if (!(error instanceof TrytonError) || error.code !== 'erp_auth') throw error;
      this.#log.warn({ method }, 'Tryton session refused, logging in again');
      this.#session = null;
      await this.login();
      return this.#send(method, params, this.#session);
    }
  }

  async logout(): Promise<void> {
    if (this.#session === null) return;
    try {
      await this.#send('common.db.logout', [], this.#session);
    } catch {
      // The session ends with its timeout anyway.
    }
    this.#session = null;
  }

  async close(): Promise<void> {
    await this.logout();
    await this.#agent.close();
  }

  async #doLogin(): Promise<void> {
    const result = await this.#send(
      'common.db.login',
      [this.#user, { password: this.#password }, this.#language],
      null,
    );
    if (!Array.isArray(result) || typeof result[0] !== 'number' || typeof result[1] !== 'string') {
      throw new TrytonError('erp_auth', `Tryton login as "${this.#user}" gave no session`, {
        method: 'common.db.login',
      });
    }
    this.#session = Buffer.from(`${this.#user}:${result[0]}:${result[1]}`).toString('base64');
    this.#log.debug({ user: this.#user, url: this.#url }, 'logged in to Tryton');
  }

  async #send(method: string, params: unknown[], session: string | null): Promise<unknown> {
    const id = ++this.#id;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (session !== null) headers.authorization = `Session ${session}`;
    let status: number;
    let text: string;
    try {
      const response = await this.#agent.request({
        origin: this.#origin,
        path: this.#path,
        method: 'POST',
        headers,
        body: JSON.stringify({ id, method, params: encodeValue(params) }),
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw errorFromFailure(method, this.#url, error);
    }
    if (status !== 200) throw errorFromStatus(method, status);
    let reply: Reply;
    try {
      reply = JSON.parse(text) as Reply;
    } catch {
      throw new TrytonError('erp_unavailable', `Tryton answered ${method} with something that is not JSON`, {
        method,
      });
    }
    if (reply.error !== undefined && reply.error !== null) throw errorFromRpc(method, reply.error);
    return decodeValue(reply.result as Parameters<typeof decodeValue>[0]);
  }
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]));
}
