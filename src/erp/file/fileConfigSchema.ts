import * as z from 'zod';
import { defineErpConfigSlice } from '../ErpConfigSlice.js';
import { FIELDS, normaliseHeader } from '../mapping/fields.js';
import { isSupportedEncoding } from './encodings.js';

const ERP_FIELDS = new Set(Object.values(FIELDS).flat());

/**
 * The file adapter's slice of the configuration (`erp` with `type: file`). src/config.ts puts it
 * into the `erp` union; the adapter receives only this slice. It imports nothing but zod, the
 * field names and the encoding check (iconv-lite), so validating a configuration loads no adapter.
 */
const buildFileConfigSchema = () =>
  z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1).describe('drop folder with stock/prices/products/events files'),
    decimalComma: z.boolean().default(false),
    delimiter: z.enum(['auto', ',', ';']).default('auto'),
    /** Encoding of the input files (iconv-lite name): utf-8, windows-1250, iso-8859-2, ... */
    encoding: z.string().trim().default('utf-8').refine(isSupportedEncoding, {
      message:
        'unknown or unsupported encoding; use utf-8, windows-1250, iso-8859-2 or another ASCII-compatible iconv-lite name',
    }),
    /** Extra header aliases per field, e.g. { quantity: ['qty', 'stoc'] }. */
    columns: z
      .record(z.string(), z.array(z.string().min(1)))
      .superRefine((columns, ctx) => {
        // A misspelt field name would leave its aliases unused without a word.
        for (const field of Object.keys(columns)) {
          if (ERP_FIELDS.has(normaliseHeader(field))) continue;
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `unknown field; one of ${[...ERP_FIELDS].join(', ')}`,
          });
        }
      })
      .default({}),
    /** A file is read only once its size has been stable this long (or it was renamed into place). */
    stableMs: z.number().int().min(0).default(500),
    /** How long to wait for a file still being written before the run fails (retryable). */
    stableTimeoutMs: z.number().int().min(0).default(30_000),
    archive: z.boolean().default(false),
    /**
     * The ERP's exported stock already subtracts an order once erp-sync wrote it to the outbox. Off:
     * the oversell guard holds an imported order until the ERP acknowledges it (any event) or its
     * window passes.
     */
    stockSubtractsImportedOrders: z.boolean().default(false),
    outbox: z
      .strictObject({
        format: z.enum(['json', 'xml']).default('json'),
        ordersDir: z.string().optional(),
        updatesDir: z.string().optional(),
        resultsDir: z.string().optional(),
        /** Refuse (park) orders with a line whose SKU is not in DIR/stock.* or DIR/products.*. */
        requireKnownSkus: z.boolean().default(false),
      })
      .default({ format: 'json', requireKnownSkus: false }),
  });

export type FileErpConfig = z.infer<ReturnType<typeof buildFileConfigSchema>>;

/** The drop folder and the outbox folders are files' paths; the file adapter has no secret. */
export const fileConfigSlice = defineErpConfigSlice({
  type: 'file',
  buildSchema: buildFileConfigSchema,
  env: [],
  paths: [['path'], ['outbox', 'ordersDir'], ['outbox', 'updatesDir'], ['outbox', 'resultsDir']],
  secrets: [],
});
