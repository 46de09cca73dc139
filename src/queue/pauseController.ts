import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RedisCommands } from './RedisCommands.js';
import type { Logger } from 'pino';
import type { PauseState } from '../diagnostics/StatusReport.js';

export type { PauseState };

export interface PauseControllerOptions {
  queues: Queue[];
  /** The producer connection: the pause reason is kept in Redis for `status` and other replicas. */
  redis: Redis;
  prefix: string;
  /** The cheap request that says whether the key is accepted again (GET /account); not asked for an ERP's refusal. */
  probe: () => Promise<void>;
  probeMs: number;
  logger: Logger;
  onChange?: (paused: boolean) => void;
}

export const pauseKey = (prefix: string): string => `${prefix}:daemon:paused`;

/** Reads the pause state another process recorded, or null. */
export async function readPauseState(redis: RedisCommands, prefix: string): Promise<PauseState | null> {
  const raw = (await redis.call('GET', pauseKey(prefix))) as string | null;
  if (!raw) return null;
  try {
    return JSON.parse(raw) as PauseState;
  } catch {
    return { reason: raw, since: '' };
  }
}

/**
 * A fatal error (the key refused: 401/403) pauses every queue, in Redis, so every replica stops;
 * then one cheap probe every few minutes resumes the queues by itself once the key is accepted.
 * Never a retry storm: while paused, the only request is the probe. When the ERP refused the
 * login (`erp_*`), the platform is not asked: the queues resume after the same wait and the next
 * job tries the ERP's login again (one login every few minutes while it is refused).
 */
export class PauseController {
  private state: PauseState | null = null;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(private readonly options: PauseControllerOptions) {}

  get paused(): PauseState | null {
    return this.state;
  }

  /** At start: a pause left by an earlier process (or a replica) is adopted and probed at once. */
  async adopt(): Promise<void> {
    const recorded = await readPauseState(this.options.redis, this.options.prefix);
    const anyPaused = (await Promise.all(this.options.queues.map((q) => q.isPaused()))).some(Boolean);
    if (!recorded && !anyPaused) return;
    this.setState(recorded ?? { reason: 'queues found paused at start', since: new Date().toISOString() });
    this.scheduleProbe(0);
  }

  async pause(reason: string, code?: string): Promise<void> {
    if (this.closed) return;
    const first = this.state === null;
    if (first) {
      this.setState({ reason, since: new Date().toISOString(), ...(code ? { code } : {}) });
      const every = Math.round(this.options.probeMs / 1000);
      this.options.logger.error(
        { reason, ...(code ? { code } : {}) },
        byErp(code)
          ? `the ERP refused erp-sync's login (${code}): every queue is paused; fix the ERP user or its password ` +
              `(TRYTON_PASSWORD, ERP_DB_PASSWORD) or its rights; the queues try again every ${every} s`
          : 'the platform refused the API key: every queue is paused; fix api.apiKey (or CMS_API_KEY) or the account; ' +
              `the daemon checks GET /account every ${every} s and resumes by itself`,
      );
    }
    await this.options.redis
      .set(pauseKey(this.options.prefix), JSON.stringify(this.state))
      .catch(() => undefined);
    await Promise.all(this.options.queues.map((q) => q.pause().catch(() => undefined)));
    if (first) this.scheduleProbe(this.options.probeMs);
  }

  private setState(state: PauseState | null): void {
    this.state = state;
    this.options.onChange?.(state !== null);
  }

  private scheduleProbe(delayMs: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.probeOnce();
    }, delayMs);
    this.timer.unref();
  }

  private async probeOnce(): Promise<void> {
    if (this.probing || this.closed || !this.state) return;
    this.probing = true;
    try {
      if (!byErp(this.state.code)) await this.options.probe();
      await this.resume();
    } catch (error) {
      this.options.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'still paused: the platform does not accept the API key yet',
      );
      this.scheduleProbe(this.options.probeMs);
    } finally {
      this.probing = false;
    }
  }

  async resume(): Promise<void> {
    const erp = byErp(this.state?.code);
    await this.options.redis.del(pauseKey(this.options.prefix));
    await Promise.all(this.options.queues.map((q) => q.resume()));
    this.setState(null);
    this.options.logger.info(
      erp
        ? "queues resumed: the next job tries the ERP's login again"
        : 'the platform accepts the API key again: queues resumed',
    );
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

function byErp(code: string | undefined): boolean {
  return code?.startsWith('erp_') === true;
}
