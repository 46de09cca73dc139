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

/**
 * An adapter's member of the union, whose schema is built only when a configuration names the
 * adapter. zod would build it to learn the member's `type` and whether it is optional; both are
 * known, so they are given, and the union never touches another adapter's schema. `_zod` is
 * zod's internal state, not its documented API (package-lock.json holds zod's version): after an
 * upgrade, the configuration tests (test/unit/config*), which parse every adapter's configuration
 * and wrong and missing `type`s through this union, say whether it still holds.
 */
function lazyMember<Schema extends z.ZodType>(slice: ErpConfigSlice<Schema>): z.ZodLazy<Schema> {
  const member = z.lazy(() => slice.schema);
  Object.defineProperties(member._zod, {
    propValues: { value: { type: new Set([slice.type]) } },
    optin: { value: undefined },
    optout: { value: undefined },
  });
  return member;
}

/** The `erp` section: one member per adapter, chosen by `type`. */
export const erpConfigSchema = z.discriminatedUnion('type', [
  lazyMember(fileConfigSlice),
  lazyMember(sqlConfigSlice),
  lazyMember(trytonConfigSlice),
]);

/** The validated `erp` section; each adapter receives its own member. */
export type ErpConfig = z.infer<typeof erpConfigSchema>;

/** The slice of the adapter a raw (not yet validated) `erp` section names, if any. */
export function erpConfigSliceOf(erpType: unknown): ErpConfigSlice | undefined {
  return ERP_CONFIG_SLICES.find((slice) => slice.type === erpType);
}
