import { ERP_CONFIG_SLICES } from '../erp/ErpConfig.js';

/**
 * Every configuration key that holds a secret, from the root: the API key and what each adapter
 * declares in its slice (src/erp/<kind>/<kind>ConfigSchema.ts). The logger redacts them.
 */
export const SECRET_CONFIG_PATHS: readonly (readonly string[])[] = [
  ['api', 'apiKey'],
  ...ERP_CONFIG_SLICES.flatMap((slice) => slice.secrets.map((secret) => ['erp', ...secret.path])),
];
