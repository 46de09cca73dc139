import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { ErpSyncError } from './domain/errors.js';
import { COURIERS, LIMITS, ORDER_STATUSES, PRODUCT_OWNABLE_FIELDS } from './domain/limits.js';
import { daemonConfigShape } from './config/daemonConfigSchema.js';
import { DEFAULT_STORE_PATH, storeConfigSchema } from './config/storeConfigSchema.js';
import { erpConfigSchema, erpConfigSliceOf } from './erp/ErpConfig.js';
import type { ErpConfigSlice } from './erp/ErpConfigSlice.js';

/**
 * The one place that reads the configuration file and process.env. Everything else receives
 * the validated slice it needs.
 */

export { DEFAULT_STORE_PATH };

const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .superRefine((value, ctx) => {
    const url = new URL(value);
    // Never sent (the key travels in a header) but printed wherever the URL is: refused, unprinted.
    if (url.username || url.password) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must not carry a user or password (user:password@host); the API key goes in api.apiKey or CMS_API_KEY',
      });
    }
  })
  .describe('API v2 base URL, ending in /api/v2 (env CMS_BASE_URL)');

const apiKeySchema = z
  .string()
  .min(1)
  // A key pasted with its line break or a trailing space would be refused by the platform (or by
  // the HTTP layer, for a CR) with a message that names neither.
  .refine((key) => key.trim() === key, {
    message: 'has a leading or trailing space or line break (copied with it?); remove it',
  })
  .refine((key) => ![...key.trim()].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127), {
    message: 'contains a control character (a line break or tab?); remove it',
  })
  .describe('API key (env CMS_API_KEY)');

const apiSchema = z.strictObject({
  baseUrl: baseUrlSchema,
  apiKey: apiKeySchema,
  authHeader: z.enum(['bearer', 'x-api-key']).default('bearer'),
  timeoutMs: z.number().int().positive().default(15_000),
  maxSockets: z.number().int().positive().max(64).default(8),
  retries: z.number().int().min(0).max(20).default(5),
  deadlineMs: z.number().int().positive().default(120_000),
});

const safetyRuleSchema = z.strictObject({
  pattern: z.string().min(1).describe('SKU glob, e.g. "SKU-1*"'),
  units: z.number().int().min(0),
});

const syncSchema = z
  .strictObject({
    batchSize: z.number().int().min(1).max(LIMITS.bulkItemsMax).default(LIMITS.bulkItemsMax),
    concurrency: z.number().int().min(1).max(32).default(4),
    safetyBuffer: z
      .strictObject({
        units: z.number().int().min(0).default(0),
        rules: z.array(safetyRuleSchema).default([]),
      })
      .default({ units: 0, rules: [] }),
    catalog: z
      .strictObject({
        overlapSeconds: z.number().int().min(0).default(120),
        perPage: z.number().int().min(1).max(100).default(100),
      })
      .default({ overlapSeconds: 120, perPage: 100 }),
    /** Per-pipeline store lease: overlapping runs take turns; a crashed run's lease lapses after ttlSeconds. */
    lease: z
      .strictObject({
        ttlSeconds: z.number().min(1).default(30),
        waitSeconds: z.number().min(0).max(86_400).default(600),
      })
      .default({ ttlSeconds: 30, waitSeconds: 600 }),
  })
  .default({
    batchSize: LIMITS.bulkItemsMax,
    concurrency: 4,
    safetyBuffer: { units: 0, rules: [] },
    catalog: { overlapSeconds: 120, perPage: 100 },
    lease: { ttlSeconds: 30, waitSeconds: 600 },
  });

const ordersSchema = z
  .strictObject({
    importStatuses: z.array(z.enum(ORDER_STATUSES)).min(1).default(['new', 'confirmed']),
    defaultCourier: z.enum(COURIERS).default('fan'),
    /** Orders fetched and imported at once. */
    concurrency: z.number().int().min(1).max(32).default(4),
    /** Page size of the order list reads (1-100). */
    perPage: z.number().int().min(LIMITS.perPageMin).max(LIMITS.perPageMax).default(100),
    oversellGuard: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** Units of orders imported less than this long ago are still held back from stock pushes. */
        windowMinutes: z.number().min(0).max(1440).default(30),
      })
      .default({ enabled: true, windowMinutes: 30 }),
    updates: z
      .strictObject({
        /** How often the orders run re-reads the list to find changes of older imported orders. */
        sweepMinutes: z.number().min(0).default(10),
        /** Imported orders older than this are no longer watched for changes. */
        lookbackDays: z.number().min(0).max(366).default(30),
      })
      .default({ sweepMinutes: 10, lookbackDays: 30 }),
    /** First automatic retry of a parked order after this; doubles up to an hour, never stops. */
    parkedRetryMinutes: z.number().min(0).default(1),
  })
  .default({
    importStatuses: ['new', 'confirmed'],
    defaultCourier: 'fan',
    concurrency: 4,
    perPage: 100,
    oversellGuard: { enabled: true, windowMinutes: 30 },
    updates: { sweepMinutes: 10, lookbackDays: 30 },
    parkedRetryMinutes: 1,
  });

const idMap = z.record(z.string().min(1), z.number().int().min(1));

const productsSchema = z
  .strictObject({
    /** The products pipeline runs only when this is true. */
    enabled: z.boolean().default(false),
    /** Create SKUs the platform lacks (POST /products). */
    create: z.boolean().default(true),
    /** Update products that exist (PATCH /products/{id}, changed fields only). */
    update: z.boolean().default(true),
    /** Fields the platform owns: never sent, neither on create nor on update. */
    platformOwned: z.array(z.enum(PRODUCT_OWNABLE_FIELDS)).default([]),
    /** Brand name (as the ERP spells it) -> platform brand_id. */
    brands: idMap.default({}),
    /** Category name (as the ERP spells it) -> platform category_id. */
    categories: idMap.default({}),
  })
  .default({ enabled: false, create: true, update: true, platformOwned: [], brands: {}, categories: {} });

export const configSchema = z.strictObject({
  api: apiSchema,
  erp: erpConfigSchema,
  store: storeConfigSchema,
  sync: syncSchema,
  orders: ordersSchema,
  products: productsSchema,
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .default({ level: 'info' }),
  /** OpenTelemetry traces: off unless env OTEL_EXPORTER_OTLP_ENDPOINT names a collector (OTLP over HTTP). */
  tracing: z
    .strictObject({
      otlpEndpoint: z.url({ protocol: /^https?$/ }).optional(),
    })
    .default({}),
  ...daemonConfigShape,
});

export type Config = z.infer<typeof configSchema>;
export type ApiConfig = Config['api'];
export type SyncConfig = Config['sync'];
export type OrdersConfig = Config['orders'];
export type ProductsConfig = Config['products'];

export class ConfigError extends ErpSyncError {
  constructor(
    message: string,
    readonly issues: string[] = [],
  ) {
    super('config_invalid', message, { issues });
  }
}

export interface LoadConfigOptions {
  /** Path of a YAML file; defaults to env ERP_SYNC_CONFIG. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values merged over the file (tests, CLI flags). */
  overrides?: Record<string, unknown>;
}

interface EnvKey {
  env: string;
  path: string[];
  /** An empty value counts too (otherwise an empty variable is taken as unset). */
  emptyCounts?: boolean;
}

const ENV_KEYS: EnvKey[] = [
  { env: 'CMS_BASE_URL', path: ['api', 'baseUrl'] },
  { env: 'CMS_API_KEY', path: ['api', 'apiKey'] },
  { env: 'ERP_SYNC_STORE', path: ['store', 'path'] },
  { env: 'LOG_LEVEL', path: ['log', 'level'] },
  { env: 'REDIS_URL', path: ['redis', 'url'] },
  { env: 'OTEL_EXPORTER_OTLP_ENDPOINT', path: ['tracing', 'otlpEndpoint'] },
];

/** The adapter the raw configuration names (`erp.type`): its rules apply, no other adapter's. */
function chosenSlice(raw: unknown): ErpConfigSlice | undefined {
  return isPlainObject(raw) && isPlainObject(raw.erp) ? erpConfigSliceOf(raw.erp.type) : undefined;
}

/** Ours, then the chosen adapter's (TRYTON_PASSWORD only with `erp.type: tryton`, ...). */
function envKeysOf(slice: ErpConfigSlice | undefined): EnvKey[] {
  const erp = (slice?.env ?? []).map(({ name, path, emptyCounts }) => ({
    env: name,
    path: ['erp', ...path],
    emptyCounts,
  }));
  return [...ENV_KEYS, ...erp];
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = options.file ?? env.ERP_SYNC_CONFIG;
  const fromFile = file ? readYamlFile(file) : {};
  const slice = chosenSlice(fromFile);
  const raw: Record<string, unknown> = file ? resolvePaths(fromFile, dirname(resolve(file)), slice) : {};
  refuseSecretsInFile(raw, slice, file);
  for (const { env: name, path, emptyCounts } of envKeysOf(slice)) {
    const value = env[name];
    if (value !== undefined && (value !== '' || emptyCounts)) setPath(raw, path, value);
  }
  const keyFile = env.CMS_API_KEY_FILE;
  if (keyFile) setPath(raw, ['api', 'apiKey'], readApiKeyFile(keyFile, env.CMS_API_KEY));
  const merged = options.overrides ? deepMerge(raw, options.overrides) : raw;
  return parseConfig(merged, file);
}

export function parseConfig(raw: unknown, origin?: string): Config {
  // A missing `api` section is reported key by key (api.baseUrl, api.apiKey), with their env names.
  const input = isPlainObject(raw) && raw.api === undefined ? { ...raw, api: {} } : raw;
  const result = configSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => {
    // A misspelt key would otherwise be ignored in silence and its default used.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((name) => `${[...issue.path, name].join('.')}: unknown key`);
    }
    const key = issue.path.join('.') || '(root)';
    const hint = envHint(issue.path.map(String), chosenSlice(input));
    const reason = /received undefined$/.test(issue.message) ? 'is required' : issue.message;
    return `${key}: ${reason}${hint}`;
  });
  const where = origin ? ` in ${origin}` : '';
  throw new ConfigError(`invalid configuration${where}:\n  - ${issues.join('\n  - ')}`, issues);
}

/**
 * A configuration file names its folders relative to itself, so that `check` or `run-once` started
 * from another directory uses the same store and drop folder (paths from the environment stay
 * relative to the current directory, as a shell user expects). The store's path, and the paths
 * the chosen adapter names (its slice's `paths`).
 */
function resolvePaths(
  raw: Record<string, unknown>,
  baseDir: string,
  slice: ErpConfigSlice | undefined,
): Record<string, unknown> {
  const out = structuredClone(raw);
  const store = isPlainObject(out.store) ? out.store : undefined;
  if (out.store === undefined || (store && store.type !== 'postgres' && store.path === undefined)) {
    setPath(out, ['store', 'path'], DEFAULT_STORE_PATH);
  }
  const paths = [['store', 'path'], ...(slice?.paths ?? []).map((path) => ['erp', ...path])];
  for (const path of paths) {
    const node = getPath(out, path.slice(0, -1));
    const last = path[path.length - 1]!;
    if (!isPlainObject(node)) continue;
    const value = node[last];
    if (typeof value !== 'string' || value === '' || value === ':memory:' || isAbsolute(value)) continue;
    node[last] = resolve(baseDir, value);
  }
  return out;
}

/**
 * CMS_API_KEY_FILE: the key in a file (a Docker or systemd secret) that an operator can replace and
 * the daemon re-reads on SIGHUP. One line break at the end is the file's, not the key's.
 */
function readApiKeyFile(file: string, inEnv: string | undefined): string {
  if (inEnv) {
    const issue = 'api.apiKey: set CMS_API_KEY or CMS_API_KEY_FILE, not both';
    throw new ConfigError(`invalid configuration:\n  - ${issue}`, [issue]);
  }
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    const issue = `api.apiKey: cannot read CMS_API_KEY_FILE ${file} (${reason})`;
    throw new ConfigError(`invalid configuration:\n  - ${issue}`, [issue]);
  }
}

/** A secret the adapter takes from the environment only is refused in a file that is copied around. */
function refuseSecretsInFile(
  raw: Record<string, unknown>,
  slice: ErpConfigSlice | undefined,
  file: string | undefined,
): void {
  const issues = (slice?.secrets ?? [])
    .filter((secret) => secret.envOnly && getPath(raw, ['erp', ...secret.path]) !== undefined)
    .map((secret) => {
      const key = ['erp', ...secret.path].join('.');
      const env = slice?.env.find((e) => e.path.join('.') === secret.path.join('.'));
      return `${key}: set it with env ${env?.name ?? '(none)'}, not in the file`;
    });
  if (issues.length === 0) return;
  throw new ConfigError(
    `invalid configuration${file ? ` in ${file}` : ''}:\n  - ${issues.join('\n  - ')}`,
    issues,
  );
}

function envHint(path: string[], slice: ErpConfigSlice | undefined): string {
  const match = envKeysOf(slice).find((k) => k.path.join('.') === path.join('.'));
  return match ? ` (set it in the file or with env ${match.env})` : '';
}

function readYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read configuration file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    // Only the first line: the parser's message goes on with an excerpt of the file, which may hold the key.
    const [first = ''] = (error as Error).message.split('\n');
    throw new ConfigError(`configuration file ${file} is not valid YAML: ${first.replace(/:$/, '')}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`configuration file ${file} must hold a mapping at the top level`);
  }
  return parsed as Record<string, unknown>;
}

function getPath(target: unknown, path: readonly string[]): unknown {
  let node = target;
  for (const key of path) node = isPlainObject(node) ? node[key] : undefined;
  return node;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Writes a configuration file (YAML) from plain values; the demo, the benchmarks and tests use it. */
export function writeConfigFile(file: string, values: Record<string, unknown>): string {
  writeFileSync(file, stringifyYaml(values));
  return file;
}
