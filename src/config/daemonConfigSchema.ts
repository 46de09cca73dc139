import { validate as validateCron } from 'node-cron';
import * as z from 'zod';
import { lazySection } from './lazySection.js';
import { PIPELINE_ORDER, type PipelineName } from '../domain/pipelineNames.js';

/** The daemon's part of the configuration (issue 10); src/config.ts composes it into the whole. */

/** Every pipeline has a schedule. */
export const SCHEDULED_PIPELINES = PIPELINE_ORDER;

function fields(expression: string): number {
  return expression.split(/\s+/).filter(Boolean).length;
}

export const DEFAULT_SCHEDULES = {
  catalog: '*/5 * * * *',
  products: '*/15 * * * *',
  orders: '* * * * *',
  stock: '* * * * *',
  prices: '*/15 * * * *',
  feedback: '* * * * *',
  'erp-orders': '*/5 * * * *',
} as const satisfies Record<PipelineName, string>;

// Each section is built at its first parse (lazySection): a file that leaves it out builds none of it.
export const redisSchema = lazySection(
  () =>
    z.strictObject({
      url: z
        .string()
        .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
        .default('redis://127.0.0.1:6379'),
      /** BullMQ key prefix, one per deployment. */
      prefix: z
        .string()
        .min(1)
        .regex(/^[^:\s]+$/, 'no ":" and no spaces')
        .default('erp-sync'),
    }),
  { url: 'redis://127.0.0.1:6379', prefix: 'erp-sync' },
);

export const schedulesSchema = lazySection(
  () => {
    const cron = z
      .string()
      .trim()
      .refine(
        (value) => value === 'off' || (fields(value) >= 5 && fields(value) <= 6 && validateCron(value)),
        {
          message: 'a cron expression with 5 fields (6 with seconds) or "off"',
        },
      );
    return z.strictObject({
      catalog: cron.default(DEFAULT_SCHEDULES.catalog),
      products: cron.default(DEFAULT_SCHEDULES.products),
      orders: cron.default(DEFAULT_SCHEDULES.orders),
      stock: cron.default(DEFAULT_SCHEDULES.stock),
      prices: cron.default(DEFAULT_SCHEDULES.prices),
      feedback: cron.default(DEFAULT_SCHEDULES.feedback),
      'erp-orders': cron.default(DEFAULT_SCHEDULES['erp-orders']),
    });
  },
  { ...DEFAULT_SCHEDULES },
);

export const serverSchema = lazySection(
  () =>
    z.strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(9464),
      /** The console at `/` and Bull Board at `/queues`. */
      dashboard: z
        .strictObject({
          /**
           * Show only: Bull Board without retry/clean/remove, the console without its actions.
           * Absent: true beyond loopback, false on a loopback host.
           */
          readOnly: z.boolean().optional(),
        })
        .default({}),
    }),
  { host: '127.0.0.1', port: 9464, dashboard: {} },
);

/** How the queues behave; every field has a default an operator rarely changes. */
export const queueSchema = lazySection(
  () =>
    z.strictObject({
      /**
       * Jobs started per `perSeconds` on the API-bound queues (a push job is one bulk request, an
       * import at most one GET), across replicas; null (the default): no job limit, the platform's
       * 429 + Retry-After makes the queue wait, and the workers' concurrency bounds requests in flight.
       */
      rateLimit: z
        .strictObject({ max: z.number().int().min(1), perSeconds: z.number().positive() })
        .nullable()
        .default(null),
      /**
       * Bulk requests in flight at once across every daemon on this Redis and prefix (BullMQ's global
       * concurrency of the pushes queue: one push job is one bulk request); null (the default): the
       * same as `sync.concurrency`, so N replicas send no more at once than one daemon does.
       */
      bulkConcurrency: z.number().int().min(1).max(256).nullable().default(null),
      /** Attempts of a job failing with a retryable error, with exponential backoff from backoffSeconds. */
      attempts: z.number().int().min(1).max(50).default(5),
      backoffSeconds: z.number().positive().default(2),
      /** While paused by a refused API key: seconds between GET /account probes; while order imports are held (the ERP failed them in a row): seconds between imports that try again. */
      probeSeconds: z.number().positive().default(180),
      /**
       * Seconds between the daemon's checks that the key still answers as the store's company
       * (GET /account); another company pauses every queue until the right one answers again.
       */
      accountCheckSeconds: z.number().positive().default(300),
      /** Completed jobs kept this long (and at most keepCompleted of them). */
      keepCompletedSeconds: z.number().int().min(0).default(3600),
      keepCompleted: z.number().int().min(0).default(1000),
      /** Failed jobs kept this long (and at most keepFailed of them) for `erp-sync jobs`. */
      keepFailedSeconds: z
        .number()
        .int()
        .min(0)
        .default(7 * 86_400),
      keepFailed: z.number().int().min(0).default(5000),
      /**
       * Upper bound in seconds on how long a push flow may hold its pipeline; null: the limit derived
       * from its batch count and the timeouts (src/queue/flowLimit.ts) alone.
       */
      flowLimitSeconds: z.number().positive().nullable().default(null),
    }),
  {
    rateLimit: null,
    bulkConcurrency: null,
    attempts: 5,
    backoffSeconds: 2,
    probeSeconds: 180,
    accountCheckSeconds: 300,
    keepCompletedSeconds: 3600,
    keepCompleted: 1000,
    keepFailedSeconds: 7 * 86_400,
    keepFailed: 5000,
    flowLimitSeconds: null,
  },
);

export const daemonConfigShape = {
  redis: redisSchema,
  schedules: schedulesSchema,
  server: serverSchema,
  queue: queueSchema,
  shutdownGraceSeconds: z.number().min(0).default(30),
};

export type RedisConfig = z.infer<typeof redisSchema>;
export type SchedulesConfig = z.infer<typeof schedulesSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type QueueConfig = z.infer<typeof queueSchema>;
