import type { Config } from '../config.js';
import { describeError } from '../domain/errors.js';
import type { Store } from '../store/index.js';
import { SCHEDULED_PIPELINES } from '../config/daemonConfigSchema.js';
import type { DaemonStatus } from '../diagnostics/StatusReport.js';
import { readPauseState } from './pauseController.js';
import { QUEUE_NAMES } from './jobTypes.js';
import { readQueueState } from './readQueueState.js';
import { redactRedisUrl } from './redactRedisUrl.js';
import { RespConnection } from './RespConnection.js';
import { runningDaemons } from './runningDaemons.js';
import { nextRunsOf } from './schedules.js';

export type { DaemonStatus };

/**
 * The daemon's view for `erp-sync status`: queue counts per state, paused and why, next scheduled
 * run per pipeline (from the expressions), last run and lag (from the store). Redis away is a
 * status, not an error.
 */
export async function buildDaemonStatus(
  config: Config,
  store: Store,
  now = new Date(),
): Promise<DaemonStatus> {
  const nextRuns = nextRunsOf(config.schedules, now);
  const pipelines = {} as DaemonStatus['pipelines'];
  for (const pipeline of SCHEDULED_PIPELINES) {
    const last = store.runs.last(pipeline);
    const ok = store.runs.lastOk(pipeline);
    const okAt = ok?.finishedAt ? Date.parse(ok.finishedAt) : null;
    pipelines[pipeline] = {
      schedule: config.schedules[pipeline],
      nextRun: nextRuns[pipeline],
      lastRun: last?.finishedAt ?? last?.startedAt ?? null,
      lastSuccess: ok?.finishedAt ?? null,
      lagSeconds: okAt === null ? null : Math.max(0, Math.round((now.getTime() - okAt) / 1000)),
    };
  }
  const status: DaemonStatus = {
    redis: redactRedisUrl(config.redis.url),
    reachable: false,
    daemons: 0,
    paused: null,
    queues: {},
    pipelines,
  };
  const { prefix } = config.redis;
  let redis;
  try {
    redis = await RespConnection.open(config.redis.url, 3_000);
  } catch (error) {
    status.error = (error as Error).message;
    return status;
  }
  try {
    status.reachable = true;
    status.paused = await readPauseState(redis, prefix);
    for (const name of QUEUE_NAMES) status.queues[name] = await readQueueState(redis, prefix, name);
    status.daemons = await runningDaemons(redis, prefix);
  } catch (error) {
    // Redis went away (or refused a command) half-way: the status says so, the store's part still shows.
    status.reachable = false;
    status.error = describeError(error);
  } finally {
    redis.close();
  }
  return status;
}
