import type { FileErpConfig } from './file/fileConfigSchema.js';
import type { TrytonErpConfig } from './tryton/trytonConfigSchema.js';
import type { SqlErpConfig } from './sql/sqlConfigSchema.js';

/**
 * The `erp` slice of the configuration: one member per adapter, each the type of that adapter's
 * own schema (src/erp/<kind>/<kind>ConfigSchema.ts). src/config.ts composes the same schemas
 * into its `erp` union; the compiler checks that the two agree where the adapter is created.
 */
export type ErpConfig = FileErpConfig | SqlErpConfig | TrytonErpConfig;
