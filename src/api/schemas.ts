import * as z from 'zod';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../domain/limits.js';

/*
 * Response records as they come over the wire (snake_case). Only the fields the daemon relies on
 * are checked; every object is loose, so unknown extra fields pass through untouched. Each record's
 * schema is `z.lazy`, built at its first parse: `erp-sync check` reads one account record and
 * built the order and product schemas for nothing (bench/RESULTS.md, "CLI start").
 */

const id = z.number().int();
/**
 * A number, or a decimal sent as a string (`"27.50"`, as Laravel-style decimal casts answer), read
 * as a number. Any other string is drift.
 */
const decimal = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'expected a number or a decimal string')
    .transform(Number),
]);
const money = decimal;
const text = z.string();
const optionalText = z.string().nullish();
const optionalNumber = decimal.nullish();
/** Some systems send invoice and AWB numbers as integers. */
const numberOrText = z.union([z.string(), z.number()]);

export const apiVariantSchema = z.lazy(() =>
  z.looseObject({
    id,
    sku: optionalText,
    name: optionalText,
    price: optionalNumber,
    sale_price: optionalNumber,
    stock_quantity: optionalNumber,
  }),
);

export const apiProductSchema = z.lazy(() =>
  z.looseObject({
    id,
    sku: text,
    name: text,
    status: text,
    type: text.optional(),
    price: optionalNumber,
    sale_price: optionalNumber,
    cost_price: optionalNumber,
    vat_rate: optionalNumber,
    stock_quantity: optionalNumber,
    variants: z.array(apiVariantSchema).nullish(),
    created_at: text.optional(),
    updated_at: text,
  }),
);

export const apiStockItemSchema = z.lazy(() =>
  z.looseObject({
    id: id.optional(),
    product_id: id.optional(),
    sku: optionalText,
    stock_quantity: optionalNumber,
  }),
);

export const apiOrderCustomerSchema = z.lazy(() =>
  z.looseObject({
    id: id.nullish(),
    name: optionalText,
    email: optionalText,
    phone: optionalText,
    company_name: optionalText,
    cui: optionalText,
    reg_com: optionalText,
  }),
);

export const apiOrderItemSchema = z.lazy(() =>
  z.looseObject({
    product_id: id.nullish(),
    variant_id: id.nullish(),
    sku: optionalText,
    name: optionalText,
    quantity: decimal,
    unit_price: money,
    tax_rate: optionalNumber,
    total: money,
  }),
);

/** A courier named as text, or as an object with its code or name. */
const courierName = z
  .union([z.string(), z.looseObject({ code: optionalText, name: optionalText })])
  .nullish()
  .transform((courier) => (typeof courier === 'string' ? courier : (courier?.code ?? courier?.name ?? null)));

/**
 * The spec shows no AWB fields: its number comes as `number`, `awb_number` or `tracking_number`
 * (text or a number) and is read as text under `number`.
 */
export const apiAwbSchema = z.lazy(() =>
  z
    .looseObject({
      number: numberOrText.nullish(),
      awb_number: numberOrText.nullish(),
      tracking_number: numberOrText.nullish(),
      courier: courierName,
      cod_amount: optionalNumber,
    })
    .superRefine((awb, ctx) => {
      if ((awb.number ?? awb.awb_number ?? awb.tracking_number) == null)
        ctx.addIssue({
          code: 'custom',
          path: ['number'],
          message: 'expected the AWB number (number, awb_number or tracking_number)',
        });
    })
    .transform((awb) => ({ ...awb, number: String(awb.number ?? awb.awb_number ?? awb.tracking_number) })),
);

/**
 * The spec shows no invoice fields: `series` with `number`, or one `invoice_number` (text or a
 * number, possibly holding the series). Read as `series` (null when not given apart) and `number`.
 */
export const apiInvoiceSchema = z.lazy(() =>
  z
    .looseObject({
      series: optionalText,
      number: numberOrText.nullish(),
      invoice_number: numberOrText.nullish(),
      total: optionalNumber,
    })
    .superRefine((invoice, ctx) => {
      if ((invoice.number ?? invoice.invoice_number) == null)
        ctx.addIssue({
          code: 'custom',
          path: ['number'],
          message: 'expected the invoice number (number or invoice_number)',
        });
    })
    .transform((invoice) => ({
      ...invoice,
      series: invoice.series ?? null,
      number: (invoice.number ?? invoice.invoice_number)!,
    })),
);

const orderStatus = z.enum(ORDER_STATUSES);
const paymentStatus = z.enum(PAYMENT_STATUSES);

/**
 * Servers name an order's lines `items` (the sandbox) or `lines` (the spec's own word); both are
 * read (an error names the field as the server sent it) and come out as `items`.
 */
const orderLines = {
  items: z.array(apiOrderItemSchema).nullish(),
  lines: z.array(apiOrderItemSchema).nullish(),
};

type Lines = z.output<typeof apiOrderItemSchema>[];

/** The order with its lines under `items`, whichever name they came under; `fallback` when none. */
function withItems<T extends { items?: Lines | null; lines?: Lines | null }, F extends Lines | undefined>(
  order: T,
  fallback: F,
): T & { items: Lines | F } {
  return { ...order, items: order.items ?? order.lines ?? fallback };
}

/**
 * An order as a list, a create or an update may answer it: what the sync needs to find, compare
 * and link an order. Lines and totals are optional (a summary list carries none; the spec
 * promises them only on `GET /orders/{id}`).
 */
export const apiOrderSummarySchema = z.lazy(() =>
  z
    .looseObject({
      id,
      number: numberOrText.nullish(),
      status: orderStatus,
      payment_status: paymentStatus,
      currency: optionalText,
      source_order_id: optionalText,
      customer_id: id.nullish(),
      customer: apiOrderCustomerSchema.nullish(),
      ...orderLines,
      subtotal: optionalNumber,
      shipping_total: optionalNumber,
      discount_total: optionalNumber,
      tax_total: optionalNumber,
      total: optionalNumber,
      awb: apiAwbSchema.nullish(),
      invoice: apiInvoiceSchema.nullish(),
      created_at: text,
      updated_at: optionalText,
    })
    .transform((order) => withItems(order, undefined)),
);

/** An order in full (`GET /orders/{id}`, and list records that carry everything): lines, totals, customer. */
export const apiOrderSchema = z.lazy(() =>
  z
    .looseObject({
      id,
      number: numberOrText,
      status: orderStatus,
      payment_status: paymentStatus,
      currency: text,
      source_order_id: optionalText,
      customer_id: id.nullish(),
      customer: apiOrderCustomerSchema.nullish(),
      ...orderLines,
      subtotal: money,
      shipping_total: money,
      discount_total: money,
      tax_total: money,
      total: money,
      awb: apiAwbSchema.nullish(),
      invoice: apiInvoiceSchema.nullish(),
      created_at: text,
      updated_at: text,
    })
    .superRefine((order, ctx) => {
      if (!order.items && !order.lines)
        ctx.addIssue({
          code: 'custom',
          path: ['items'],
          message: 'expected the order lines (items or lines)',
        });
    })
    .transform((order) => withItems(order, [])),
);

export const apiCustomerSchema = z.lazy(() =>
  z.looseObject({
    id,
    name: optionalText,
    email: optionalText,
  }),
);

export const apiTagSchema = z.lazy(() => z.looseObject({ id, name: text, color: optionalText }));

export const apiCategorySchema = z.lazy(() => z.looseObject({ id, name: text }));

export const apiReturnSchema = z.lazy(() => z.looseObject({ id }));

export const apiOfferSchema = z.lazy(() => z.looseObject({ id }));

/** Account, stats, connection and reference lists: nothing the daemon relies on beyond being objects. */
export const apiObjectSchema = z.looseObject({});

export const pageMetaSchema = z.lazy(() =>
  z.looseObject({
    current_page: z.number().int().optional(),
    per_page: z.number().int().optional(),
    total: z.number().int().optional(),
    last_page: z.number().int().optional(),
  }),
);

const notFoundEntry = z.union([z.string(), z.number(), z.looseObject({})]);

/**
 * Bulk results: `updated` as a count, a decimal string or a list (anything else is not counted:
 * nothing depends on it); `not_found` entries as strings, numbers or objects, or a map keyed by
 * SKU (`{"X-1": "not found"}`), read as its keys.
 */
export const bulkResultSchema = z.lazy(() =>
  z.looseObject({
    updated: z
      .unknown()
      .optional()
      .transform((value) =>
        Array.isArray(value) || typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\d+$/.test(value)
            ? Number(value)
            : undefined,
      ),
    not_found: z
      .union([z.array(notFoundEntry), z.record(z.string(), z.unknown()).transform((map) => Object.keys(map))])
      .nullish(),
  }),
);

export type ApiVariant = z.infer<typeof apiVariantSchema>;
export type ApiProduct = z.infer<typeof apiProductSchema>;
export type ApiStockItem = z.infer<typeof apiStockItemSchema>;
export type ApiOrderCustomer = z.infer<typeof apiOrderCustomerSchema>;
export type ApiOrderItem = z.infer<typeof apiOrderItemSchema>;
export type ApiAwb = z.infer<typeof apiAwbSchema>;
export type ApiInvoice = z.infer<typeof apiInvoiceSchema>;
export type ApiOrder = z.infer<typeof apiOrderSchema>;
export type ApiOrderSummary = z.infer<typeof apiOrderSummarySchema>;
export type ApiCustomer = z.infer<typeof apiCustomerSchema>;
export type ApiTag = z.infer<typeof apiTagSchema>;
export type ApiCategory = z.infer<typeof apiCategorySchema>;
export type ApiReturn = z.infer<typeof apiReturnSchema>;
export type ApiOffer = z.infer<typeof apiOfferSchema>;
export type ApiRecord = z.infer<typeof apiObjectSchema>;
export type ApiAccount = ApiRecord;
export type ApiStats = ApiRecord;
