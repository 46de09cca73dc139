import * as z from 'zod';
import { defineErpConfigSlice } from '../ErpConfigSlice.js';
import { parameterProblems } from './namedParameters.js';

export const SQL_CLIENTS = ['pg', 'mysql', 'mssql', 'sqlite'] as const;
export type SqlClient = (typeof SQL_CLIENTS)[number];

/** Our canonical staging column -> the integrator's column name. */
const columnNames = <const K extends readonly [string, ...string[]]>(keys: K) =>
  z.partialRecord(z.enum(keys), z.string().min(1).max(128)).default({});

export const ORDER_COLUMNS = [
  'id',
  'platform_order_id',
  'order_number',
  'status',
  'payment_status',
  'currency',
  'customer_name',
  'customer_email',
  'customer_phone',
  'company_name',
  'cui',
  'reg_com',
  'customer_street',
  'customer_city',
  'customer_postal_code',
  'customer_county',
  'customer_country',
  'subtotal',
  'shipping_total',
  'discount_total',
  'tax_total',
  'total',
  'placed_at',
  'imported_at',
  'payload',
] as const;
export const LINE_COLUMNS = [
  'id',
  'order_id',
  'line_no',
  'sku',
  'name',
  'quantity',
  'unit_price',
  'tax_rate',
  'total',
] as const;
export const CHANGE_COLUMNS = [
  'id',
  'platform_order_id',
  'erp_ref',
  'seq',
  'status',
  'payment_status',
  'previous_status',
  'previous_payment_status',
  'created_at',
] as const;

const table = <const K extends readonly [string, ...string[]]>(name: string, keys: K) =>
  z
    .strictObject({ table: z.string().min(1).max(128).default(name), columns: columnNames(keys) })
    .default({ table: name, columns: {} });

/** A query or statement written by the integrator, with named parameters (`:since`, `:after`). */
const sqlTextSchema = () => z.string().trim().min(1).max(100_000);

const buildSqlErpConfigSchema = (sqlText = sqlTextSchema()) =>
  z.strictObject({
    type: z.literal('sql'),
    client: z.enum(SQL_CLIENTS).describe('pg, mysql (MySQL and MariaDB), mssql (SQL Server) or sqlite'),
    connection: z.strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(1).max(65_535).optional(),
      user: z.string().min(1).optional(),
      /** From env ERP_DB_PASSWORD only: a password in the file is refused. */
      password: z.string().optional(),
      database: z.string().min(1).optional(),
      /** SQLite: the database file. */
      filename: z.string().min(1).optional(),
      /** TLS to the server (pg ssl, mysql ssl, mssql encrypt). */
      ssl: z.boolean().default(false),
    }),
    pool: z
      .strictObject({
        min: z.number().int().min(0).max(32).default(0),
        max: z.number().int().min(1).max(64).default(4),
      })
      .default({ min: 0, max: 4 }),
    connectTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** A statement running longer than this fails (retryable). */
    queryTimeoutMs: z.number().int().min(100).max(3_600_000).default(120_000),
    /** Numbers held as text with a decimal comma ("12,50"). */
    decimalComma: z.boolean().default(false),
    /** Extra column aliases per canonical field, as for the file adapter. */
    columns: z.record(z.string(), z.array(z.string().min(1))).default({}),
    queries: z
      .strictObject({
        /** Full reads: every SKU's absolute stock / prices / master data. */
        stock: sqlText.optional(),
        prices: sqlText.optional(),
        products: sqlText.optional(),
        /** Incremental reads: rows changed since `:since` (a timestamp); used between full reads. */
        stockChanges: sqlText.optional(),
        pricesChanges: sqlText.optional(),
        /** Fulfilment facts after the checkpoint `:after`, ordered by the checkpoint column. */
        events: sqlText.optional(),
        /** Orders born in the ERP after `:after`: one row per line, ordered by checkpoint and order. */
        outgoingOrders: sqlText.optional(),
        /** Returns a row when `:sku` is known to the ERP; an order with an unknown SKU is parked. */
        knownSku: sqlText.optional(),
      })
      .default({}),
    statements: z
      .strictObject({
        /** Writes the platform's answer to an event (`:event_id`, `:order_id`, `:erp_ref`, ...). */
        feedback: sqlText.optional(),
        /** Tells the ERP which platform order its order became (`:source_order_id`, `:platform_order_id`). */
        outgoingOrderCreated: sqlText.optional(),
      })
      .default({}),
    /**
     * The stock query's quantity already subtracts an order once it is in the staging tables (the
     * ERP reserves from them, or the query subtracts staged lines). Off: the oversell guard holds
     * an imported order until the ERP acknowledges it (an event) or its window passes.
     */
    stockSubtractsImportedOrders: z.boolean().default(false),
    /** Column of the events / outgoingOrders queries that orders the rows and is passed back as `:after`. */
    checkpointColumn: z.string().min(1).default('checkpoint'),
    /** `:after` of the first read, before any checkpoint is stored (e.g. 0 for an id, or a date). */
    initialCheckpoint: z.string().default('0'),
    /**
     * The ERP's business zone (IANA name): `:today` is its date, and its day change starts a full
     * read. `database` (default): the database session's `current_date`.
     */
    timeZone: z
      .string()
      .trim()
      .min(1)
      .default('database')
      .refine((zone) => zone === 'database' || isTimeZone(zone), {
        message: 'unknown time zone; use an IANA name such as Europe/Bucharest, or database',
      }),
    incremental: z
      .strictObject({
        /** Re-read this much before the last acknowledged read: clocks drift, transactions commit late. */
        overlapSeconds: z.number().int().min(0).max(86_400).default(120),
        /** With `stockChanges`/`pricesChanges`: a full read at least this often anyway (0: only on --full). */
        fullEveryMinutes: z.number().min(0).max(525_600).default(1440),
        /** With `stockChanges`/`pricesChanges`: the first read of a new day (in `timeZone`) is a full read. */
        fullAtDayChange: z.boolean().default(true),
      })
      .default({ overlapSeconds: 120, fullEveryMinutes: 1440, fullAtDayChange: true }),
    /**
     * PostgreSQL only: LISTEN on this channel for the changes that the integrator's triggers
     * (`erp-sync erp notify-trigger`) announce, so the daemon runs that pipeline at once.
     */
    listen: z
      .strictObject({
        channel: z
          .string()
          .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case PostgreSQL identifier (letters, digits, _)')
          .default('erp_sync'),
        /** Notifications of one change within this time start one run. */
        debounceMs: z.number().int().min(0).max(60_000).default(200),
      })
      .optional(),
    staging: z
      .strictObject({
        orders: table('erp_sync_orders', ORDER_COLUMNS),
        lines: table('erp_sync_order_lines', LINE_COLUMNS),
        changes: table('erp_sync_order_changes', CHANGE_COLUMNS),
      })
      .default({
        orders: { table: 'erp_sync_orders', columns: {} },
        lines: { table: 'erp_sync_order_lines', columns: {} },
        changes: { table: 'erp_sync_order_changes', columns: {} },
      }),
  });

let uncheckedSchema: ReturnType<typeof buildSqlErpConfigSchema> | undefined;

/** The SQL adapter's `erp` section without the checks across keys (built at the first call). */
export function sqlErpConfigSchema(): ReturnType<typeof buildSqlErpConfigSchema> {
  return (uncheckedSchema ??= buildSqlErpConfigSchema());
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export type SqlErpConfig = z.infer<ReturnType<typeof sqlErpConfigSchema>>;
export type SqlQueryName = keyof SqlErpConfig['queries'] | keyof SqlErpConfig['statements'];

/** The named parameters each query may use; anything else is refused when the config is loaded. */
export const QUERY_PARAMETERS: Record<SqlQueryName, readonly string[]> = {
  stock: ['today'],
  prices: ['today'],
  products: [],
  stockChanges: ['since', 'today'],
  pricesChanges: ['since', 'today'],
  events: ['after'],
  outgoingOrders: ['after'],
  knownSku: ['sku'],
  feedback: [
    'event_id',
    'order_id',
    'erp_ref',
    'kind',
    'status',
    'awb_number',
    'awb_courier',
    'invoice_series',
    'invoice_number',
  ],
  outgoingOrderCreated: ['source_order_id', 'platform_order_id'],
};

/** The SQL adapter's slice of the configuration, with the checks that need several keys at once. */
const buildCheckedSqlErpConfigSchema = () =>
  sqlErpConfigSchema().superRefine((config, ctx) => {
    for (const section of ['queries', 'statements'] as const) {
      for (const [name, sql] of Object.entries(config[section])) {
        if (!sql) continue;
        for (const message of parameterProblems(sql, QUERY_PARAMETERS[name as SqlQueryName])) {
          ctx.addIssue({ code: 'custom', path: [section, name], message });
        }
      }
    }
    if (config.client === 'sqlite' && !config.connection.filename) {
      ctx.addIssue({
        code: 'custom',
        path: ['connection', 'filename'],
        message: 'is required for client sqlite',
      });
    }
    if (config.listen && config.client !== 'pg') {
      ctx.addIssue({
        code: 'custom',
        path: ['listen'],
        message: `needs client pg (LISTEN/NOTIFY); ${config.client} runs on its schedules (docs/sql-adapter.md)`,
      });
    }
    if (config.client !== 'sqlite' && !config.connection.database) {
      ctx.addIssue({
        code: 'custom',
        path: ['connection', 'database'],
        message: `is required for client ${config.client}`,
      });
    }
  });

/**
 * A database password belongs in the environment (ERP_DB_PASSWORD), never in a file that is
 * copied around; an empty ERP_DB_PASSWORD is a password too. SQLite's file is a path.
 */
export const sqlConfigSlice = defineErpConfigSlice({
  type: 'sql',
  buildSchema: buildCheckedSqlErpConfigSchema,
  env: [{ name: 'ERP_DB_PASSWORD', path: ['connection', 'password'], emptyCounts: true }],
  paths: [['connection', 'filename']],
  secrets: [{ path: ['connection', 'password'], envOnly: true }],
});
