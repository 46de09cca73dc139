import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { ApiClient } from '../api/index.js';
import type { ApiConfig } from '../config.js';
import { describeError } from '../domain/errors.js';
import type { Store } from '../store/index.js';
import { createPlatformClient, operatorClientBounds } from '../sync/createPlatformClient.js';
import { logAccountMoved } from '../sync/logAccountMoved.js';
import { accountIdentity, settleStoreAccount, type AccountState } from '../sync/storeAccount.js';
import { StoreAccountMismatchError } from '../sync/StoreAccountMismatchError.js';

export interface AccountGateOptions {
  store: Store;
  /** The pipelines' client: it gets a reloaded key or base URL only once that answers as the store's company. */
  client: ApiClient;
  api: ApiConfig;
  logger: Logger;
  /** Between checks while the gate is open (queue.accountCheckSeconds). */
  checkMs: number;
  /** Between checks while it is closed (another company, or the account could not be read). */
  retryMs: number;
  /** Jobs held back while the gate is closed start again this much later. */
  holdMs: number;
  /** The gate opened (true) or closed (false): the daemon resumes or pauses its workers. */
  onChange: (open: boolean) => void;
  /** The state changed (the metrics' gauges); called once with the first state. */
  onState?: (state: AccountState) => void;
}

/**
 * Invariant 12 for the daemon: no job runs unless the key answers as the company the store is
 * bound to. Checked before the workers start (another company: StoreAccountMismatchError, the
 * daemon exits 65), again every checkMs, and at once when the configuration is reloaded (SIGHUP):
 * a reloaded key is tried on its own client and handed to the pipelines only when it answers as
 * the store's company; otherwise the gate closes (readiness red, workers paused, held jobs wait)
 * until the right company answers again.
 */
export class AccountGate {
  readonly #options: AccountGateOptions;
  /** The credentials the pipelines' client uses. */
  #active: ApiConfig;
  /** The credentials the configuration names (after a reload, until they are verified). */
  #configured: ApiConfig;
  #reason: string | null = null;
  #state: AccountState | undefined;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: AccountGateOptions) {
    this.#options = options;
    this.#active = options.api;
    this.#configured = options.api;
  }

  get open(): boolean {
    return this.#reason === null;
  }

  /** Why jobs are held, for /readyz; null while the gate is open. */
  reason(): string | null {
    return this.#reason;
  }

  /**
   * The first check, before any job: binds an unbound store, throws StoreAccountMismatchError for
   * another company. An account that cannot be read keeps the gate closed and is tried again.
   */
  async start(): Promise<void> {
    this.#reason = 'the account has not been checked yet';
    this.#report('unverified');
    await this.#serial(() => this.#check(true));
  }

  /** The configuration was read again: its API credentials are checked before the pipelines use them. */
  async reload(api: ApiConfig): Promise<void> {
    this.#configured = api;
    await this.#serial(() => this.#check(false));
  }

  /** In a processor, before the job's work: while the gate is closed the job waits (delayed), untouched. */
  async admit(job: Job, token: string | undefined): Promise<void> {
    if (this.open) return;
    await job.moveToDelayed(Date.now() + this.#options.holdMs, token);
    throw new DelayedError();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #serial(check: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(check);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #check(atStart: boolean): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    const api = this.#configured;
    const changed = !sameCredentials(api, this.#active);
    const log = this.#options.logger;
    let identity;
    try {
      identity = accountIdentity(api.baseUrl, await this.#readAccount(api));
    } catch (error) {
      if (atStart || changed || !this.open) {
        const which = changed ? 'the reloaded API key' : 'the API key';
        this.#setReason(
          `the store's account is not verified: GET /account with ${which} failed (${describeError(error)})`,
          'unverified',
        );
      } else {
        // A blip while open: the jobs meet the same failure and report it their way.
        log.warn(
          { err: describeError(error) },
          'could not check the account (GET /account); checked again later',
        );
      }
      this.#schedule();
      return;
    }
    try {
      const check = settleStoreAccount(this.#options.store, identity, { bind: true });
      if (changed) {
        this.#options.client.useCredentials(api);
        this.#active = api;
        log.info(
          { baseUrl: identity.baseUrl },
          "the reloaded API credentials answer as the store's company: in use",
        );
      }
      if (check.movedFrom) logAccountMoved(log, check.movedFrom, identity);
      this.#setReason(null, 'verified');
    } catch (error) {
      if (!(error instanceof StoreAccountMismatchError)) throw error;
      if (atStart) throw error;
      this.#setReason(`another company's API key: ${error.message}`, 'mismatch');
    } finally {
      this.#schedule();
    }
  }

  async #readAccount(api: ApiConfig): Promise<Record<string, unknown>> {
    // Its own client: a reloaded key reaches the pipelines' client only once verified. Bounded, so
    // that a platform that does not answer at start delays the daemon's start by seconds, not minutes.
    const probe = createPlatformClient(
      api,
      this.#options.logger.child({ module: 'api' }),
      operatorClientBounds(api, 1),
    );
    try {
      return await probe.account.get();
    } finally {
      await probe.close();
    }
  }

  #setReason(reason: string | null, state: AccountState): void {
    this.#report(state);
    const before = this.#reason;
    if (before === reason) return;
    this.#reason = reason;
    const log = this.#options.logger;
    if (reason === null) {
      if (before !== 'the account has not been checked yet')
        log.info("the key answers as the store's company again: the queues go on");
      this.#options.onChange(true);
      return;
    }
    if (state === 'mismatch')
      log.error(
        { reason },
        "every queue of this daemon is paused: nothing is written until the store's company answers again",
      );
    else log.warn({ reason }, "the queues of this daemon wait until the store's account is verified");
    if (before === null) this.#options.onChange(false);
  }

  #report(state: AccountState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#options.onState?.(state);
  }

  #schedule(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () =>
        void this.#serial(() => this.#check(false)).catch((error: unknown) => {
          this.#options.logger.error({ err: describeError(error) }, 'the account check failed');
        }),
      this.open ? this.#options.checkMs : this.#options.retryMs,
    );
    this.#timer.unref();
  }
}

function sameCredentials(a: ApiConfig, b: ApiConfig): boolean {
  return a.baseUrl === b.baseUrl && a.apiKey === b.apiKey && a.authHeader === b.authHeader;
}
