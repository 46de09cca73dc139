import * as z from 'zod';
import { defineErpConfigSlice } from '../ErpConfigSlice.js';

/**
 * The Tryton adapter's slice of the configuration (`erp` with `type: tryton`). The password is
 * usually set from env TRYTON_PASSWORD (see trytonConfigSlice).
 */
const buildTrytonConfigSchema = () =>
  z.strictObject({
    type: z.literal('tryton'),
    url: z.url().describe('Tryton server URL, e.g. http://127.0.0.1:8000/'),
    database: z.string().min(1).describe('Tryton database name'),
    user: z.string().min(1).default('admin'),
    password: z.string().min(1).describe('Tryton password (env TRYTON_PASSWORD)'),
    /** Company id; default: the user's current company. */
    company: z.number().int().positive().optional(),
    /** Warehouse codes (stock.location of type warehouse) whose stock is summed per SKU. */
    warehouses: z.array(z.string().min(1)).min(1).default(['WH']),
    timeoutMs: z.number().int().positive().default(30_000),
    stock: z
      .strictObject({
        /** quantity: done moves only; forecast_quantity: also planned moves (confirmed sales). */
        field: z.enum(['quantity', 'forecast_quantity']).default('forecast_quantity'),
        /** Read only SKUs with stock moves changed since the last committed read. */
        incremental: z.boolean().default(true),
        /** Re-read this far before the checkpoint (Tryton stamps a row with its transaction's start). */
        overlapSeconds: z.number().int().min(0).default(300),
        /**
         * With `incremental`: read every product anyway at least this often (0: only on --full). A
         * deleted planned move changes the forecast without a move the incremental read can see.
         */
        fullEveryMinutes: z.number().min(0).max(525_600).default(60),
      })
      .default({ field: 'forecast_quantity', incremental: true, overlapSeconds: 300, fullEveryMinutes: 60 }),
    prices: z
      .strictObject({
        incremental: z.boolean().default(true),
        overlapSeconds: z.number().int().min(0).default(300),
        /** With `incremental`: read every product anyway at least this often (0: only on --full). */
        fullEveryMinutes: z.number().min(0).max(525_600).default(1440),
        /** list_price is net: push it with the product's customer taxes added (platform prices include VAT). */
        addTaxes: z.boolean().default(true),
      })
      .default({ incremental: true, overlapSeconds: 300, fullEveryMinutes: 1440, addTaxes: true }),
    orders: z
      .strictObject({
        /** Confirm the sale after quoting it (shipment and invoice follow Tryton's own rules). */
        confirm: z.boolean().default(true),
        /** Warehouse code the sales ship from; default: the first of `warehouses`. */
        warehouse: z.string().min(1).optional(),
        /** Orders events (shipped, invoiced) are re-read this far before the checkpoint. */
        eventsOverlapSeconds: z.number().int().min(0).default(300),
      })
      .default({ confirm: true, eventsOverlapSeconds: 300 }),
  });

export type TrytonErpConfig = z.infer<ReturnType<typeof buildTrytonConfigSchema>>;

export const trytonConfigSlice = defineErpConfigSlice({
  type: 'tryton',
  buildSchema: buildTrytonConfigSchema,
  env: [{ name: 'TRYTON_PASSWORD', path: ['password'] }],
  paths: [],
  secrets: [{ path: ['password'] }],
});
