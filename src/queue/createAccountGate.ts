import type { Job, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { ApiConfig, Config } from '../config.js';
import type { SyncContext } from '../sync/frame/types.js';
import { AccountGate } from './accountGate.js';
import type { AccountState } from '../sync/storeAccount.js';
import type { QueueName } from './jobTypes.js';

type Processor<J extends Job, R> = (job: J, token?: string, signal?: AbortSignal) => Promise<R>;

/** The daemon's side of the AccountGate: its workers pause while the gate is closed. */
export interface DaemonAccountGate {
  start(): Promise<void>;
  reload(api: ApiConfig): Promise<void>;
  reason(): string | null;
  /** The processor, run only while the gate is open (a job taken just as it closed waits, delayed). */
  guard<J extends Job, R>(processor: Processor<J, R>): Processor<J, R>;
  /** The workers exist: paused at once if the gate is closed (the account could not be read yet). */
  workersStarted(): void;
  close(): void;
}

/** Closed while the account cannot be read: tried again this often (at most), so a start during an outage recovers soon. */
const MAX_RETRY_MS = 30_000;

export function createAccountGate(
  config: Config,
  logger: Logger,
  ctx: SyncContext,
  workers: ReadonlyMap<QueueName, Worker>,
  onState?: (state: AccountState) => void,
): DaemonAccountGate {
  const setPaused = (paused: boolean): void => {
    for (const worker of workers.values()) {
      if (paused) void worker.pause(true).catch(() => undefined);
      else worker.resume();
    }
  };
  const retryMs = Math.min(
    config.queue.probeSeconds * 1000,
    config.queue.accountCheckSeconds * 1000,
    MAX_RETRY_MS,
  );
  const gate = new AccountGate({
    store: ctx.store,
    client: ctx.client,
    api: config.api,
    logger,
    checkMs: config.queue.accountCheckSeconds * 1000,
    retryMs,
    holdMs: retryMs,
    onChange: (open) => setPaused(!open),
    onState,
  });
  return {
    start: () => gate.start(),
    reload: (api) => gate.reload(api),
    reason: () => gate.reason(),
    guard: (processor) => async (job, token, signal) => {
      await gate.admit(job, token);
      return processor(job, token, signal);
    },
    workersStarted: () => {
      if (!gate.open) setPaused(true);
    },
    close: () => gate.close(),
  };
}
