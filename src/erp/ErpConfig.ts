import * as z from 'zod';
import type { ErpConfigSlice } from './ErpConfigSlice.js';
import { fileConfigSlice } from './file/fileConfigSchema.js';
import { sqlConfigSlice } from './sql/sqlConfigSchema.js';
import { trytonConfigSlice } from './tryton/trytonConfigSchema.js';

/**
 * Every adapter's configuration slice (src/erp/<kind>/<kind>ConfigSchema.ts), the one list of
 * them: src/config.ts takes the `erp` schema and each adapter's environment, path and secret
 * rules from here. Schemas only: no adapter and no driver is loaded.
 */
export const ERP_CONFIG_SLICES: readonly ErpConfigSlice[] = [
  fileConfigSlice,
  sqlConfigSlice,
  trytonConfigSlice,
];

/** The `erp` section: one member per adapter, chosen by `type`. */
export const erpConfigSchema = z.discriminatedUnion('type', [
  fileConfigSlice.schema,
  sqlConfigSlice.schema,
  trytonConfigSlice.schema,
]);

/** The validated `erp` section; each adapter receives its own member. */
export type ErpConfig = z.infer<typeof erpConfigSchema>;

/** The slice of the adapter a raw (not yet validated) `erp` section names, if any. */
export function erpConfigSliceOf(erpType: unknown): ErpConfigSlice | undefined {
  return ERP_CONFIG_SLICES.find((slice) => slice.type === erpType);
}
