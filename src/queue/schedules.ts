import { createTask, parse, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { SCHEDULED_PIPELINES, type SchedulesConfig } from '../config/daemonConfigSchema.js';
import type { PipelineName } from './jobTypes.js';

export interface Schedules {
  /** Next fire time per enabled pipeline (null for "off"). */
  nextRuns(): Record<PipelineName, string | null>;
  enabled(): PipelineName[];
  stop(): Promise<void>;
}

/** The enabled pipelines of a schedules config, in run order. */
export function enabledPipelines(schedules: SchedulesConfig): PipelineName[] {
  return SCHEDULED_PIPELINES.filter((pipeline) => schedules[pipeline] !== 'off');
}

/** When each pipeline fires next after `from`, from the expressions alone (for `status` in another process). */
export function nextRunsOf(
  schedules: SchedulesConfig,
  from = new Date(),
): Record<PipelineName, string | null> {
  const out = {} as Record<PipelineName, string | null>;
  // Each expression once: three of the seven defaults are `* * * * *`, and node-cron's parse of an
  // expression alone builds some forty regular expressions (bench/RESULTS.md, "CLI start").
  const found = new Map<string, string | null>([['off', null]]);
  for (const pipeline of SCHEDULED_PIPELINES) {
    const expression = schedules[pipeline];
    if (!found.has(expression)) found.set(expression, nextRun(expression, from)?.toISOString() ?? null);
    out[pipeline] = found.get(expression)!;
  }
  return out;
}

// Eight years: the longest gap between two 29 Februaries (a day that does not match costs one check).
const SEARCH_DAYS = 8 * 366;
/**
 * More than a zone's offset changes within a day (2 hours at most, Antarctica/Troll's summer time):
 * a slot whose wall-clock time is this much before `from`'s is before `from` whatever the offsets.
 */
const OFFSET_SHIFT_MS = 3 * 3_600_000;

/** The first time after `from` that the expression matches (local time, as node-cron fires), within eight years. */
export function nextRun(expression: string, from: Date): Date | null {
  const fields = parse(expression);
  const plain = plainMatcher(fields);
  const task = plain ? undefined : createTask(expression, () => undefined);
  const matches = plain ?? ((at: Date) => task?.match(at) === true);
  try {
    const fromWall = wallClockMs(from);
    const day = new Date(from.getFullYear(), from.getMonth(), from.getDate());
    for (let d = 0; d < SEARCH_DAYS; d++, day.setDate(day.getDate() + 1)) {
      // The day's first slot matches exactly when the day does (day of month, month, weekday): a
      // day that does not is skipped whole, not second by second (`* * * 29 2 *` took minutes).
      const first = new Date(
        day.getFullYear(),
        day.getMonth(),
        day.getDate(),
        fields.hour[0],
        fields.minute[0],
        fields.second[0],
      );
      if (!matches(first)) continue;
      const dayWall = Date.UTC(day.getFullYear(), day.getMonth(), day.getDate());
      for (const hour of fields.hour) {
        for (const minute of fields.minute) {
          for (const second of fields.second) {
            // The first day's slots before `from`, skipped without making their Date: each looks up
            // the zone's offset, and `* * * * *` at 23:59 has 1,439 of them (`status` shows seven).
            if (dayWall + ((hour * 60 + minute) * 60 + second) * 1000 + OFFSET_SHIFT_MS < fromWall) continue;
            const at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour, minute, second);
            if (at > from && matches(at)) return at;
          }
        }
      }
    }
    return null;
  } finally {
    void task?.destroy();
  }
}

type CronFields = ReturnType<typeof parse>;

/** The local date and time of `at` read as if it were UTC: a wall clock's milliseconds, with no offset. */
function wallClockMs(at: Date): number {
  return Date.UTC(
    at.getFullYear(),
    at.getMonth(),
    at.getDate(),
    at.getHours(),
    at.getMinutes(),
    at.getSeconds(),
    at.getMilliseconds(),
  );
}

/**
 * node-cron's own match for an expression of plain values (no L, W or #), read with Date's local
 * getters: node-cron reads the same local fields through an Intl.DateTimeFormat, whose first use
 * costs `status` 20-25 ms CPU (ICU's time zone data). Both fields of the day must match, as in
 * node-cron. Null for the special tokens, which go to node-cron itself.
 */
function plainMatcher(fields: CronFields): ((at: Date) => boolean) | null {
  const lists = [
    fields.second,
    fields.minute,
    fields.hour,
    fields.dayOfMonth,
    fields.month,
    fields.dayOfWeek,
  ];
  if (lists.some((values) => values.some((value) => typeof value !== 'number'))) return null;
  const [second, minute, hour, day, month, weekday] = lists.map((values) => new Set(values));
  return (at) =>
    second!.has(at.getSeconds()) &&
    minute!.has(at.getMinutes()) &&
    hour!.has(at.getHours()) &&
    day!.has(at.getDate()) &&
    month!.has(at.getMonth() + 1) &&
    weekday!.has(at.getDay());
}

/**
 * The cron triggers, all in this one file: node-cron fires, the trigger only enqueues (with the
 * de-duplication of enqueueRun), never runs a pipeline itself. "off" creates no task at all.
 */
export function startSchedules(
  config: SchedulesConfig,
  trigger: (pipeline: PipelineName) => Promise<void>,
  logger: Logger,
): Schedules {
  const tasks = new Map<PipelineName, ScheduledTask>();
  for (const pipeline of enabledPipelines(config)) {
    const task = createTask(
      config[pipeline],
      async () => {
        try {
          await trigger(pipeline);
        } catch (error) {
          // Redis away: the next tick tries again; the store keeps what is still to do.
          logger.warn({ pipeline, err: (error as Error).message }, 'could not enqueue the scheduled run');
        }
      },
      { name: `erp-sync-${pipeline}`, noOverlap: true, suppressMissedWarning: true },
    );
    void task.start();
    tasks.set(pipeline, task);
  }
  return {
    nextRuns() {
      const out = nextRunsOf(config);
      for (const [pipeline, task] of tasks) out[pipeline] = task.getNextRun()?.toISOString() ?? out[pipeline];
      return out;
    },
    enabled: () => [...tasks.keys()],
    async stop() {
      for (const task of tasks.values()) await task.destroy();
      tasks.clear();
    },
  };
}
