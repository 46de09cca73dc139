import type { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { RedisReplyError } from './RedisReplyError.js';
import { redactRedisUrl } from './redactRedisUrl.js';
import { RedisUnavailableError } from './RedisUnavailableError.js';

/** A reply of RESP2: simple and bulk strings, integers, nil, arrays (EXEC's replies, each one's error kept). */
export type RespValue = string | number | null | RespValue[] | RedisReplyError;

/** What reading a reply from `buffer` at `at` gave: the value and where the next one starts, or undefined (incomplete). */
type Parsed = { value: RespValue; next: number } | undefined;

function parseReply(buffer: Buffer, at: number): Parsed {
  const end = buffer.indexOf('\r\n', at);
  if (end === -1) return undefined;
  const line = buffer.toString('utf8', at + 1, end);
  switch (buffer[at]) {
    case 0x2b: // +
      return { value: line, next: end + 2 };
    case 0x2d: // -
      return { value: new RedisReplyError(line), next: end + 2 };
    case 0x3a: // :
      return { value: Number(line), next: end + 2 };
    case 0x24: {
      // $
      const length = Number(line);
      if (length < 0) return { value: null, next: end + 2 };
      if (buffer.length < end + 2 + length + 2) return undefined;
      return { value: buffer.toString('utf8', end + 2, end + 2 + length), next: end + 2 + length + 2 };
    }
    case 0x2a: {
      // *
      const count = Number(line);
      if (count < 0) return { value: null, next: end + 2 };
      const items: RespValue[] = [];
      let next = end + 2;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, next);
        if (!item) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new RedisReplyError(`unexpected reply from Redis (${JSON.stringify(line.slice(0, 40))})`);
  }
}

const encode = (args: readonly string[]): string =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

interface Pending {
  resolve(value: RespValue): void;
  reject(error: Error): void;
}

/**
 * One plain Redis connection for a short command's few reads (`status`, `check`): the commands
 * go out in RESP2 over node:net (node:tls for rediss://) and their replies come back in order.
 * ioredis does the same with about 450 kB of code (cluster, sentinel, scripts) and node:tls
 * loaded whatever the URL: about a sixth of `status`'s start (bench/RESULTS.md, "CLI start").
 * The daemon and the queue commands keep ioredis (BullMQ needs it). It connects as ioredis does
 * with the URL alone: host, port, user and password (AUTH), database (SELECT), TLS for rediss://,
 * and it tries again while nothing answers, until the timeout.
 */
export class RespConnection {
  readonly #socket: Socket;
  readonly #pending: Pending[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('Connection is closed.')));
  }

  /**
   * A connection once Redis answers (AUTH and SELECT done); RedisUnavailableError (the URL without
   * its password, and why) when it does not within timeoutMs.
   */
  static async open(url: string, timeoutMs: number): Promise<RespConnection> {
    const where = redactRedisUrl(url);
    const reason = `Redis not reachable within ${Math.round(timeoutMs / 1000)} s`;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new RedisUnavailableError(where, 'the URL cannot be parsed');
    }
    const deadline = Date.now() + timeoutMs;
    const expired = AbortSignal.timeout(timeoutMs);
    for (let attempt = 1; ; attempt++) {
      try {
        return await RespConnection.#connect(target, expired);
      } catch (error) {
        // A refused AUTH or SELECT is an answer: trying again would not change it.
        if (error instanceof RedisReplyError) throw new RedisUnavailableError(where, error.message);
      }
      // As ioredis's retry strategy for the CLI's connections: 200 ms more each time.
      const wait = Math.min(200 * attempt, deadline - Date.now());
      if (expired.aborted || wait <= 0) throw new RedisUnavailableError(where, reason);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Connects, then AUTH and SELECT; `expired` ends it wherever it is (the socket destroyed). */
  static async #connect(target: URL, expired: AbortSignal): Promise<RespConnection> {
    expired.throwIfAborted();
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
    const port = Number(target.port || 6379);
    const tls = target.protocol === 'rediss:';
    // process.getBuiltinModule: node:tls only for rediss://, and neither builds an ES namespace.
    const socket = tls
      ? process
          .getBuiltinModule('node:tls')
          .connect({ host, port, servername: host } satisfies ConnectionOptions)
      : process.getBuiltinModule('node:net').connect({ host, port });
    socket.setNoDelay(true);
    const abort = (): void => void socket.destroy(new Error('timed out'));
    expired.addEventListener('abort', abort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once(tls ? 'secureConnect' : 'connect', resolve);
        socket.once('error', reject);
      });
      const connection = new RespConnection(socket);
      const password = decodeURIComponent(target.password);
      const user = decodeURIComponent(target.username);
      if (password) await connection.call('AUTH', ...(user ? [user, password] : [password]));
      const db = Number(target.pathname.slice(1) || 0);
      if (db) await connection.call('SELECT', String(db));
      return connection;
    } catch (error) {
      socket.destroy();
      throw error;
    } finally {
      expired.removeEventListener('abort', abort);
    }
  }

  /** One command's reply; a Redis error reply rejects with RedisReplyError. */
  async call(command: string, ...args: string[]): Promise<RespValue> {
    const reply = await this.#send([command, ...args]);
    if (reply instanceof RedisReplyError) throw reply;
    return reply;
  }

  /** The commands in one MULTI/EXEC, so that they read one moment; their replies in order. */
  async transaction(commands: readonly (readonly string[])[]): Promise<RespValue[]> {
    const sent = [this.#send(['MULTI']), ...commands.map((c) => this.#send(c)), this.#send(['EXEC'])];
    const replies = await Promise.all(sent);
    const refused = replies.find((reply) => reply instanceof RedisReplyError);
    if (refused) throw refused;
    const results = replies.at(-1);
    if (!Array.isArray(results)) throw new RedisReplyError('the transaction was aborted');
    return results;
  }

  close(): void {
    this.#closed ??= new Error('Connection is closed.');
    this.#socket.destroy();
  }

  #send(args: readonly string[]): Promise<RespValue> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      this.#socket.write(encode(args));
    });
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    let at = 0;
    for (;;) {
      let parsed: Parsed;
      try {
        parsed = parseReply(this.#buffer, at);
      } catch (error) {
        this.#fail(error as Error);
        this.#socket.destroy();
        return;
      }
      if (!parsed) break;
      at = parsed.next;
      this.#pending.shift()?.resolve(parsed.value);
    }
    this.#buffer = this.#buffer.subarray(at);
  }

  #fail(error: Error): void {
    this.#closed ??= error;
    for (const pending of this.#pending.splice(0)) pending.reject(error);
  }
}
