import type { z } from 'zod';

/** A key inside the adapter's `erp` section, e.g. `['connection', 'password']`. */
export type ErpConfigPath = readonly [string, ...string[]];

/**
 * What an adapter tells the configuration about its `erp` section, beside the schema: which
 * environment variables fill which keys, which keys name files (relative ones are taken from the
 * configuration file's folder), and which keys hold secrets (never printed, redacted from logs).
 * src/config.ts applies these rules to the chosen adapter's section and knows no adapter's keys.
 */
export interface ErpConfigSlice<Schema extends z.ZodType = z.ZodType> {
  type: string;
  /** Built at its first read: a configuration builds its own adapter's schema and no other. */
  readonly schema: Schema;
  env: readonly {
    name: string;
    path: ErpConfigPath;
    /** An empty value counts (a database user without a password); otherwise ignored. */
    emptyCounts?: boolean;
  }[];
  paths: readonly ErpConfigPath[];
  secrets: readonly {
    path: ErpConfigPath;
    /** Refused in the file: only its environment variable may set it. */
    envOnly?: boolean;
  }[];
}

/**
 * Typed once here, so that each adapter's slice keeps its own schema type. The schema is built
 * when first read: building zod schemas is a good part of a short command's start (`check`).
 */
export function defineErpConfigSlice<Schema extends z.ZodType>({
  buildSchema,
  ...rules
}: Omit<ErpConfigSlice<Schema>, 'schema'> & { buildSchema: () => Schema }): ErpConfigSlice<Schema> {
  let schema: Schema | undefined;
  return {
    ...rules,
    get schema() {
      return (schema ??= buildSchema());
    },
  };
}
