import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import * as z from 'zod';
import { ErpSyncError } from './domain/errors.js';
import { COURIERS, LIMITS, ORDER_STATUSES, PRODUCT_OWNABLE_FIELDS } from './domain/limits.js';
import {
  accountEntrySchema,
  accountEnvName,
  accountPrefix,
  accountStorePath,
  accountStoreSchema,
  DEFAULT_ACCOUNT,
  SINGLE_ACCOUNT_ENV,
  type AccountEntry,
} from './config/accountEntrySchema.js';
import { daemonConfigShape } from './config/daemonConfigSchema.js';
import { lazySection } from './config/lazySection.js';
import { DEFAULT_STORE_PATH, storeConfigSchema } from './config/storeConfigSchema.js';
import { erpConfigSchema, erpConfigSliceOf } from './erp/ErpConfig.js';
import type { ErpConfigSlice } from './erp/ErpConfigSlice.js';

/**
 * The one place that reads the configuration file and process.env. Everything else receives
 * the validated slice it needs.
 */

export { DEFAULT_ACCOUNT } from './config/accountEntrySchema.js';
export { DEFAULT_STORE_PATH };

/**
 * How the configuration is parsed: once per start (and per reload), so without zod's JIT. At a
 * schema's first parse the JIT writes and compiles (eval) a parser for each object schema, which
 * pays off over many parses of the same schema (the API's responses in the daemon) but costs a
 * one-time parse more than it saves: about 4% of the instructions of a whole `erp-sync check`
 * (bench/RESULTS.md, "CLI start"). Same results and messages either way: only the path differs.
 */
const PARSED_ONCE = { jitless: true } as const;

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

const syncSchema = lazySection(
  () =>
    z.strictObject({
      batchSize: z.number().int().min(1).max(LIMITS.bulkItemsMax).default(LIMITS.bulkItemsMax),
      concurrency: z.number().int().min(1).max(32).default(4),
      safetyBuffer: z
        .strictObject({
          units: z.number().int().min(0).default(0),
          rules: z
            .array(
              z.strictObject({
                pattern: z.string().min(1).describe('SKU glob, e.g. "SKU-1*"'),
                units: z.number().int().min(0),
              }),
            )
            .default([]),
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
    }),
  {
    batchSize: LIMITS.bulkItemsMax,
    concurrency: 4,
    safetyBuffer: { units: 0, rules: [] },
    catalog: { overlapSeconds: 120, perPage: 100 },
    lease: { ttlSeconds: 30, waitSeconds: 600 },
  },
);

const ordersSchema = lazySection(
  () =>
    z.strictObject({
      importStatuses: z.array(z.enum(ORDER_STATUSES)).min(1).default(['new', 'confirmed']),
      defaultCourier: z.enum(COURIERS).default('fan'),
      /** Orders fetched and imported at once; null: what the ERP adapter takes (`importsAtOnce`). */
      concurrency: z.number().int().min(1).max(32).nullable().default(null),
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
    }),
  {
    importStatuses: ['new', 'confirmed'],
    defaultCourier: 'fan',
    concurrency: null,
    perPage: 100,
    oversellGuard: { enabled: true, windowMinutes: 30 },
    updates: { sweepMinutes: 10, lookbackDays: 30 },
    parkedRetryMinutes: 1,
  },
);

const productsSchema = lazySection(
  () => {
    const idMap = z.record(z.string().min(1), z.number().int().min(1));
    return z.strictObject({
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
    });
  },
  { enabled: false, create: true, update: true, platformOwned: [], brands: {}, categories: {} },
);

export const configSchema = z.strictObject({
  api: apiSchema,
  erp: erpConfigSchema,
  store: storeConfigSchema,
  sync: syncSchema,
  orders: ordersSchema,
  products: productsSchema,
  log: lazySection(
    () =>
      z.strictObject({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      }),
    { level: 'info' },
  ),
  /** OpenTelemetry traces: off unless env OTEL_EXPORTER_OTLP_ENDPOINT names a collector (OTLP over HTTP). */
  tracing: lazySection(
    () => z.strictObject({ otlpEndpoint: z.url({ protocol: /^https?$/ }).optional() }),
    {},
  ),
  ...daemonConfigShape,
});

export type Config = z.infer<typeof configSchema>;
export type ApiConfig = Config['api'];
export type SyncConfig = Config['sync'];
export type OrdersConfig = Config['orders'];
export type ProductsConfig = Config['products'];

/** `--account` names no account of the configuration, or none is named where several exist. */
export class AccountChoiceError extends ErpSyncError {
  constructor(
    message: string,
    readonly accounts: readonly string[],
  ) {
    super('account_unknown', message, { accounts });
  }
}

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

/** One platform account of the configuration, validated as a whole configuration of its own. */
export interface AccountConfig {
  readonly name: string;
  readonly config: Config;
}

/** What one configuration file runs: one account, or the accounts its `accounts:` list names. */
export interface Deployment {
  /**
   * The file has an `accounts:` list: each account has its own BullMQ prefix, store and metric
   * label. False: the one implicit account `default`, with the prefix, store and metrics of a
   * configuration written before accounts existed.
   */
  readonly multi: boolean;
  /** In the file's order; with `account` in the options, that one only. */
  readonly accounts: readonly AccountConfig[];
  /** Every account the file names (also those not loaded). */
  readonly names: readonly string[];
}

export interface LoadDeploymentOptions extends LoadConfigOptions {
  /** Load this account only (the CLI's --account): another account's missing key does not matter. */
  account?: string | undefined;
}

/** The account a command runs for: the one named, or the only one; several and none named is an error naming them. */
export function loadConfig(options: LoadDeploymentOptions = {}): Config {
  const deployment = loadDeployment(options);
  if (deployment.accounts.length > 1) {
    throw new AccountChoiceError(
      `the configuration names several accounts (${deployment.names.join(', ')}): choose one with --account NAME`,
      deployment.names,
    );
  }
  return deployment.accounts[0]!.config;
}

export function loadDeployment(options: LoadDeploymentOptions = {}): Deployment {
  const env = options.env ?? process.env;
  const file = options.file ?? env.ERP_SYNC_CONFIG;
  const fromFile = file ? readYamlFile(file) : {};
  if (fromFile.accounts !== undefined) return loadAccounts(fromFile, file, env, options);
  if (options.account !== undefined && options.account !== DEFAULT_ACCOUNT) {
    throw new AccountChoiceError(
      `no account "${options.account}": the configuration has no accounts list, its one account is "${DEFAULT_ACCOUNT}"`,
      [DEFAULT_ACCOUNT],
    );
  }
  const config = loadSingleAccount(fromFile, file, env, options.overrides);
  return { multi: false, accounts: [{ name: DEFAULT_ACCOUNT, config }], names: [DEFAULT_ACCOUNT] };
}

function loadSingleAccount(
  fromFile: Record<string, unknown>,
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  overrides: Record<string, unknown> | undefined,
): Config {
  const slice = chosenSlice(fromFile);
  const raw: Record<string, unknown> = file ? resolvePaths(fromFile, dirname(resolve(file)), slice) : {};
  refuseSecretsInFile(raw, slice, file);
  const storeType = getPath(overrides ?? {}, ['store', 'type']) ?? getPath(raw, ['store', 'type']);
  const storeConflict = storeType === 'postgres' && Boolean(env.ERP_SYNC_STORE);
  for (const { env: name, path, emptyCounts } of envKeysOf(slice)) {
    const value = env[name];
    if (storeConflict && name === 'ERP_SYNC_STORE') continue;
    if (value !== undefined && (value !== '' || emptyCounts)) setPath(raw, path, value);
  }
  const keyFile = env.CMS_API_KEY_FILE;
  if (keyFile) setPath(raw, ['api', 'apiKey'], readApiKeyFile(keyFile, env.CMS_API_KEY));
  const merged = overrides ? deepMerge(raw, overrides) : raw;
  if (!storeConflict) return parseConfig(merged, file);
  // Set, it would only add store.path to a postgres store: "unknown key" would not say why.
  const issues = [
    'store: ERP_SYNC_STORE is set, which sets the file path of an SQLite store, but store.type is postgres: unset ERP_SYNC_STORE, or remove store.type postgres to use the SQLite file',
  ];
  try {
    parseConfig(merged, file);
  } catch (error) {
    if (error instanceof ConfigError) issues.push(...error.issues);
    else throw error;
  }
  const where = file ? ` in ${file}` : '';
  throw new ConfigError(`invalid configuration${where}:\n  - ${issues.join('\n  - ')}`, issues);
}

/**
 * `accounts:`: each entry deep-merged over the file's top level (the shared defaults), its key
 * from the variable or file it names, its paths resolved, then validated as a configuration of
 * its own, every problem naming the account. Two accounts may not share a store or a prefix.
 */
function loadAccounts(
  fromFile: Record<string, unknown>,
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  options: LoadDeploymentOptions,
): Deployment {
  const where = file ? ` in ${file}` : '';
  const fail = (issues: string[]): never => {
    throw new ConfigError(`invalid configuration${where}:\n  - ${issues.join('\n  - ')}`, issues);
  };
  const { accounts: list, ...shared } = fromFile;
  const issues = SINGLE_ACCOUNT_ENV.filter((name) => env[name]).map(
    (name) =>
      `accounts: ${name} is set, but the configuration lists accounts: name each account's key with api.apiKeyEnv or api.apiKeyFile, its URL and store in its entry`,
  );
  if (!Array.isArray(list) || list.length === 0) issues.push('accounts: a list of at least one account');
  // Inherited by every entry, it would stand in for an account whose own variable is unset.
  if (getPath(shared, ['api', 'apiKey']) !== undefined)
    issues.push('api.apiKey: not with accounts: each entry names its key (api.apiKeyEnv or api.apiKeyFile)');
  if (issues.length) fail(issues);
  const entries: AccountEntry[] = [];
  (list as unknown[]).forEach((item, index) => {
    const parsed = accountEntrySchema.safeParse(item, PARSED_ONCE);
    const label = isPlainObject(item) && typeof item.name === 'string' ? item.name : `#${index + 1}`;
    if (parsed.success) entries.push(parsed.data);
    else issues.push(...zodIssues(parsed.error.issues).map((issue) => `account ${label}: ${issue}`));
  });
  const names = entries.map((entry) => entry.name);
  for (const name of new Set(names.filter((name, i) => names.indexOf(name) !== i)))
    issues.push(`account ${name}: two accounts have this name`);
  if (issues.length) fail(issues);
  if (options.account !== undefined && !names.includes(options.account)) {
    throw new AccountChoiceError(
      `no account "${options.account}" in the configuration; its accounts: ${names.join(', ')}`,
      names,
    );
  }
  const baseDir = file ? dirname(resolve(file)) : process.cwd();
  const raws = entries.map((entry) => ({ entry, raw: accountRaw(shared, entry, baseDir) }));
  issues.push(...sharedPlaces(raws));
  const chosen = raws.filter(({ entry }) => options.account === undefined || entry.name === options.account);
  const accounts: AccountConfig[] = [];
  for (const { entry, raw } of chosen) {
    const result = accountConfig(entry, raw, env, options.overrides);
    if ('config' in result) accounts.push({ name: entry.name, config: result.config });
    else issues.push(...result.issues.map((issue) => `account ${entry.name}: ${issue}`));
  }
  if (issues.length) fail(issues);
  return { multi: true, accounts, names };
}

/** One account's configuration: its environment (own ERP variables first) and key added, validated. */
function accountConfig(
  entry: AccountEntry,
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  overrides: Record<string, unknown> | undefined,
): { config: Config } | { issues: string[] } {
  const issues: string[] = [];
  const slice = chosenSlice(raw);
  for (const secret of slice?.secrets ?? []) {
    if (secret.envOnly && getPath(raw, ['erp', ...secret.path]) !== undefined) {
      const name = slice?.env.find((e) => e.path.join('.') === secret.path.join('.'))?.name ?? '(none)';
      issues.push(
        `erp.${secret.path.join('.')}: set it with env ${accountEnvName(name, entry.name)} or ${name}, not in the file`,
      );
    }
  }
  for (const { name, path, emptyCounts } of [...SHARED_ENV_KEYS, ...erpEnvKeysOf(slice, entry.name)]) {
    const value = name.map((n) => env[n]).find((v) => v !== undefined && (v !== '' || emptyCounts));
    if (value !== undefined) setPath(raw, path, value);
  }
  const key = accountKey(entry, env, issues);
  if (key !== undefined) setPath(raw, ['api', 'apiKey'], key);
  const merged = overrides ? deepMerge(raw, overrides) : raw;
  if (getPath(merged, ['api', 'apiKey']) === undefined && issues.length === 0) {
    issues.push(
      entry.api.apiKeyEnv
        ? `api.apiKey: env ${entry.api.apiKeyEnv} (api.apiKeyEnv) is not set`
        : 'api.apiKey: is required',
    );
    // Said once, in those words: not again as the schema's "is required".
    setPath(merged, ['api', 'apiKey'], 'unset');
  }
  const result = configSchema.safeParse(merged, PARSED_ONCE);
  if (!result.success) issues.push(...zodIssues(result.error.issues));
  return issues.length || !result.success ? { issues } : { config: result.data };
}

/** The shared top level with the entry's overrides, relative paths resolved from the file's folder. */
function accountRaw(
  shared: Record<string, unknown>,
  entry: AccountEntry,
  baseDir: string,
): Record<string, unknown> {
  const { name, api, redis, ...sections } = entry;
  const { apiKeyEnv: _env, apiKeyFile: _file, ...apiRest } = api;
  const base = structuredClone(shared);
  const sharedPrefix = getPath(base, ['redis', 'prefix']);
  // An ERP of another type shares no key with the top level's: the entry's replaces it whole.
  if (sections.erp?.type !== undefined) delete base.erp;
  const raw = deepMerge(base, { ...sections, api: apiRest });
  const prefix =
    redis?.prefix ?? accountPrefix(typeof sharedPrefix === 'string' ? sharedPrefix : 'erp-sync', name);
  setPath(raw, ['redis', 'prefix'], prefix);
  if (getPath(raw, ['store', 'type']) === 'postgres') {
    // A schema of its own in the shared database unless the entry names one.
    if (getPath(sections, ['store', 'schema']) === undefined)
      setPath(raw, ['store', 'schema'], accountStoreSchema(name));
  } else if (
    getPath(raw, ['store', 'path']) === undefined &&
    getPath(shared, ['store', 'path']) === undefined
  )
    setPath(raw, ['store', 'path'], accountStorePath(name));
  return resolvePaths(raw, baseDir, chosenSlice(raw));
}

/** Two accounts on one store would mix their links, cursors and company binding; on one prefix, their queues. */
function sharedPlaces(raws: readonly { entry: AccountEntry; raw: Record<string, unknown> }[]): string[] {
  const issues: string[] = [];
  const check = (what: string, path: string[], hint: string): void => {
    const seen = new Map<unknown, string>();
    for (const { entry, raw } of raws) {
      const value = getPath(raw, path);
      const other = seen.get(value);
      if (value !== undefined && other !== undefined)
        issues.push(
          `account ${entry.name}: ${path.join('.')} is the ${what} of account ${other} too; ${hint}`,
        );
      else seen.set(value, entry.name);
    }
  };
  check('store', ['store', 'path'], 'give each account its own store');
  check('store', ['store', 'schema'], 'give each account its own store.schema');
  check(
    'BullMQ prefix',
    ['redis', 'prefix'],
    'give each account its own redis.prefix (or none: the name is added)',
  );
  return issues;
}

function accountKey(entry: AccountEntry, env: NodeJS.ProcessEnv, issues: string[]): string | undefined {
  const { apiKeyEnv, apiKeyFile } = entry.api;
  if (apiKeyEnv !== undefined) return env[apiKeyEnv] || undefined;
  if (apiKeyFile === undefined) return undefined;
  try {
    return readFileSync(apiKeyFile, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    issues.push(
      `api.apiKey: cannot read api.apiKeyFile ${apiKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
    return undefined;
  }
}

/** Variables that apply to every account alike. */
const SHARED_ENV_KEYS = ENV_KEYS.filter(
  (key) => !(SINGLE_ACCOUNT_ENV as readonly string[]).includes(key.env),
).map((key) => ({ ...key, name: [key.env] }));

/** The adapter's variables, the account's own copy first (ERP_DB_PASSWORD_ACME, then ERP_DB_PASSWORD). */
function erpEnvKeysOf(slice: ErpConfigSlice | undefined, account: string) {
  return (slice?.env ?? []).map(({ name, path, emptyCounts }) => ({
    name: [accountEnvName(name, account), name],
    path: ['erp', ...path],
    emptyCounts,
  }));
}

export function parseConfig(raw: unknown, origin?: string): Config {
  // A missing `api` section is reported key by key (api.baseUrl, api.apiKey), with their env names.
  const input = isPlainObject(raw) && raw.api === undefined ? { ...raw, api: {} } : raw;
  const result = configSchema.safeParse(input, PARSED_ONCE);
  if (result.success) return result.data;
  const slice = chosenSlice(input);
  const issues = zodIssues(result.error.issues, (path) => envHint(path, slice));
  const where = origin ? ` in ${origin}` : '';
  throw new ConfigError(`invalid configuration${where}:\n  - ${issues.join('\n  - ')}`, issues);
}

/** One line per problem, naming the key; the env hint only where a single-account variable sets the key. */
function zodIssues(issues: readonly z.core.$ZodIssue[], hintOf?: (path: string[]) => string): string[] {
  return issues.flatMap((issue) => {
    // A misspelt key would otherwise be ignored in silence and its default used.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((name) => `${[...issue.path, name].join('.')}: unknown key`);
    }
    const key = issue.path.join('.') || '(root)';
    const hint = hintOf?.(issue.path.map(String)) ?? '';
    const reason = /received undefined$/.test(issue.message) ? 'is required' : issue.message;
    return `${key}: ${reason}${hint}`;
  });
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
