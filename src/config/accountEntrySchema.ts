import * as z from 'zod';

/**
 * One entry of the configuration's `accounts:` list (issue 22): a platform account served by the
 * same process. Every key but `name` and the key's source is an override of the top-level section
 * of the same name (deep-merged over it), then the whole is validated as a single-account
 * configuration. Process-wide settings (Redis URL, ops server, log, tracing, shutdown grace) are
 * top-level only: one process has one of each.
 */

/** The name a configuration without `accounts:` gives its one account (`--account default`). */
export const DEFAULT_ACCOUNT = 'default';

/** Lower case, digits, `-` and `_`: it goes into a BullMQ prefix, a file name, an env name and a metric label. */
export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Environment variable names the entry may point at. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Built at its first parse: only a configuration with `accounts:` reads an entry. */
export const accountEntrySchema = z.lazy(() => {
  const section = z.record(z.string(), z.unknown());
  return z
    .strictObject({
      name: z
        .string()
        .regex(
          ACCOUNT_NAME,
          'lower case letters, digits, "-" and "_", at most 40, starting with a letter or digit',
        ),
      api: z
        .looseObject({
          /** The environment variable that holds this account's API key. */
          apiKeyEnv: z.string().regex(ENV_NAME, 'an environment variable name').optional(),
          /** A file that holds this account's API key (a Docker or systemd secret), read again on SIGHUP. */
          apiKeyFile: z.string().min(1).optional(),
        })
        .default({}),
      erp: section.optional(),
      store: section.optional(),
      schedules: section.optional(),
      sync: section.optional(),
      orders: section.optional(),
      products: section.optional(),
      queue: section.optional(),
      /** Only the BullMQ prefix: the Redis URL is the process's. */
      redis: z.strictObject({ prefix: z.string().optional() }).optional(),
    })
    .superRefine((entry, ctx) => {
      const { apiKeyEnv, apiKeyFile } = entry.api;
      if ('apiKey' in entry.api) {
        ctx.addIssue({
          code: 'custom',
          path: ['api', 'apiKey'],
          message:
            'not in the file: name the environment variable that holds it with api.apiKeyEnv (or a file with api.apiKeyFile)',
        });
      } else if (apiKeyEnv === undefined && apiKeyFile === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['api', 'apiKeyEnv'],
          message:
            "is required: the environment variable that holds the account's API key (or api.apiKeyFile)",
        });
      } else if (apiKeyEnv !== undefined && apiKeyFile !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['api'],
          message: 'set api.apiKeyEnv or api.apiKeyFile, not both',
        });
      }
    });
});

export type AccountEntry = z.infer<typeof accountEntrySchema>;

/**
 * The environment variables a single-account configuration reads for its one account; a file with
 * `accounts:` refuses them, as they would not say which account they are for.
 */
export const SINGLE_ACCOUNT_ENV = [
  'CMS_API_KEY',
  'CMS_API_KEY_FILE',
  'CMS_BASE_URL',
  'ERP_SYNC_STORE',
] as const;

/** The account's own copy of an ERP variable (`ERP_DB_PASSWORD_ACME` for account `acme`), tried before the shared one. */
export function accountEnvName(env: string, account: string): string {
  return `${env}_${account.toUpperCase().replace(/-/g, '_')}`;
}

/** The BullMQ prefix of an account that sets none: the deployment's prefix and the account's name. */
export function accountPrefix(prefix: string, account: string): string {
  return `${prefix}-${account}`;
}

/** The SQLite file of an account that names none, beside where the single-account default would be. */
export function accountStorePath(account: string): string {
  return `./data/erp-sync-${account}.db`;
}

/** The PostgreSQL schema of an account that names none, in the database the top level names. */
export function accountStoreSchema(account: string): string {
  return `erp_sync_${account.replace(/-/g, '_')}`;
}
