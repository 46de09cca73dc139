import * as z from 'zod';

export const DEFAULT_STORE_PATH = './data/erp-sync.db';
/** The environment variable holding the PostgreSQL store's password unless `passwordEnv` names another. */
export const DEFAULT_STORE_PASSWORD_ENV = 'PGPASSWORD';

const sqliteStoreSchema = z.strictObject({
  type: z.literal('sqlite').optional(),
  path: z.string().min(1).default(DEFAULT_STORE_PATH),
});

const postgresStoreSchema = z.strictObject({
  type: z.literal('postgres'),
  /** postgres://user@host:port/database; the password comes from the environment, never from here. */
  url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .refine((url) => !hasPassword(url), {
      message: `holds a password: set it in the environment (${DEFAULT_STORE_PASSWORD_ENV}, or the variable store.passwordEnv names)`,
    }),
  /** The schema of the store's tables: one store per schema (several accounts share a database). */
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _ (a PostgreSQL name)')
    .default('erp_sync'),
  /** The environment variable that holds the password (default PGPASSWORD). */
  passwordEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
});

/**
 * Where the daemon keeps its state: an SQLite file (the default, `store.path`) or a PostgreSQL
 * schema that replicas on several hosts share. A self-contained object, so that it can sit in
 * any section that needs a store of its own.
 */
export const storeConfigSchema = z
  .discriminatedUnion('type', [sqliteStoreSchema, postgresStoreSchema])
  .default({ path: DEFAULT_STORE_PATH });

export type StoreConfig = z.output<typeof storeConfigSchema>;
export type PostgresStoreConfig = z.output<typeof postgresStoreSchema>;

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
