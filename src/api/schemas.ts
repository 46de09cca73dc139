import { z } from 'zod';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../domain/limits.js';

/*
 * Response records as they come over the wire (snake_case). Only the fields the daemon relies on
 * are checked; every object is loose, so unknown extra fields pass through untouched.
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

export const apiVariantSchema = z.looseObject({
  id,
  sku: optionalText,
  name: optionalText,
  price: optionalNumber,
  sale_price: optionalNumber,
  stock_quantity: optionalNumber,
});

export const apiProductSchema = z.looseObject({
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
});

export const apiStockItemSchema = z.looseObject({
  id: id.optional(),
  product_id: id.optional(),
  sku: optionalText,
  stock_quantity: optionalNumber,
});

export const apiOrderCustomerSchema = z.looseObject({
  id: id.nullish(),
  name: optionalText,
  email: optionalText,
  phone: optionalText,
  company_name: optionalText,
  cui: optionalText,
  reg_com: optionalText,
});

export const apiOrderItemSchema = z.looseObject({
  product_id: id.nullish(),
  variant_id: id.nullish(),
  sku: optionalText,
  name: optionalText,
  quantity: decimal,
  unit_price: money,
  tax_rate: optionalNumber,
  total: money,
});

export const apiAwbSchema = z.looseObject({
  number: numberOrText,
  courier: optionalText,
  cod_amount: optionalNumber,
});

export const apiInvoiceSchema = z.looseObject({
  series: optionalText,
  number: numberOrText,
  total: optionalNumber,
});

export const apiOrderSchema = z.looseObject({
  id,
  number: numberOrText,
  status: z.enum(ORDER_STATUSES),
  payment_status: z.enum(PAYMENT_STATUSES),
  currency: text,
  source_order_id: optionalText,
  customer_id: id.nullish(),
  customer: apiOrderCustomerSchema.nullish(),
  items: z.array(apiOrderItemSchema),
  subtotal: money,
  shipping_total: money,
  discount_total: money,
  tax_total: money,
  total: money,
  awb: apiAwbSchema.nullish(),
  invoice: apiInvoiceSchema.nullish(),
  created_at: text,
  updated_at: text,
});

export const apiCustomerSchema = z.looseObject({
  id,
  name: optionalText,
  email: optionalText,
});

export const apiTagSchema = z.looseObject({ id, name: text, color: optionalText });

export const apiCategorySchema = z.looseObject({ id, name: text });

export const apiReturnSchema = z.looseObject({ id });

export const apiOfferSchema = z.looseObject({ id });

/** Account, stats, connection and reference lists: nothing the daemon relies on beyond being objects. */
export const apiObjectSchema = z.looseObject({});

export const pageMetaSchema = z.looseObject({
  current_page: z.number().int().optional(),
  per_page: z.number().int().optional(),
  total: z.number().int().optional(),
  last_page: z.number().int().optional(),
});

/** Bulk results: `updated` as a count or a list, `not_found` entries as strings, numbers or objects. */
export const bulkResultSchema = z.looseObject({
  updated: z.union([z.number(), z.array(z.unknown())]).optional(),
  not_found: z.array(z.union([z.string(), z.number(), z.looseObject({})])).nullish(),
});

export type ApiVariant = z.infer<typeof apiVariantSchema>;
export type ApiProduct = z.infer<typeof apiProductSchema>;
export type ApiStockItem = z.infer<typeof apiStockItemSchema>;
export type ApiOrderCustomer = z.infer<typeof apiOrderCustomerSchema>;
export type ApiOrderItem = z.infer<typeof apiOrderItemSchema>;
export type ApiAwb = z.infer<typeof apiAwbSchema>;
export type ApiInvoice = z.infer<typeof apiInvoiceSchema>;
export type ApiOrder = z.infer<typeof apiOrderSchema>;
export type ApiCustomer = z.infer<typeof apiCustomerSchema>;
export type ApiTag = z.infer<typeof apiTagSchema>;
export type ApiCategory = z.infer<typeof apiCategorySchema>;
export type ApiReturn = z.infer<typeof apiReturnSchema>;
export type ApiOffer = z.infer<typeof apiOfferSchema>;
export type ApiRecord = z.infer<typeof apiObjectSchema>;
export type ApiAccount = ApiRecord;
export type ApiStats = ApiRecord;
