import type { Courier, OrderStatus, PaymentStatus, ProductStatus, ProductType } from '../domain/limits.js';

/** Request shapes of API v2, by their wire names (section 2 of the spec). */

export interface PageQuery {
  per_page?: number;
  page?: number;
}

export interface SearchQuery extends PageQuery {
  search?: string;
}

export interface ProductListQuery extends SearchQuery {
  status?: ProductStatus;
  /** ISO 8601 date or date-time; only products modified strictly after it. */
  updated_after?: string;
}

export interface OrderListQuery extends SearchQuery {
  status?: OrderStatus;
}

export interface ProductUpdateInput {
  name?: string;
  status?: ProductStatus;
  sku?: string;
  slug?: string;
  ean?: string;
  mpn?: string;
  brand_id?: number;
  category_id?: number;
  price?: number;
  /** null clears the sale price. */
  sale_price?: number | null;
  cost_price?: number;
  vat_rate?: number;
  stock_quantity?: number;
  track_stock?: boolean;
  highlights?: string[];
  short_description?: string;
  long_description?: string;
  weight_grams?: number;
  length_mm?: number;
  width_mm?: number;
  height_mm?: number;
  meta_title?: string;
  meta_description?: string;
}

export interface ProductCreateInput extends ProductUpdateInput {
  name: string;
  type?: ProductType;
}

export interface PriceUpdateInput {
  price?: number;
  /** null clears the sale price. */
  sale_price?: number | null;
  cost_price?: number;
  vat_rate?: number;
}

export type StockUpdateInput =
  { quantity: number; delta?: undefined } | { delta: number; quantity?: undefined };

export interface BulkStockItem {
  id?: number;
  sku?: string;
  variant_id?: number;
  variant_sku?: string;
  quantity?: number;
  delta?: number;
}

export interface BulkPriceItem {
  id?: number;
  sku?: string;
  variant_id?: number;
  variant_sku?: string;
  price?: number;
  /** null clears the sale price. */
  sale_price?: number | null;
  cost_price?: number;
  vat_rate?: number;
}

export interface OrderCustomerInput {
  name: string;
  email?: string;
  phone?: string;
  company_name?: string;
  cui?: string;
  reg_com?: string;
}

export interface OrderItemInput {
  product_id?: number;
  sku?: string;
  variant_id?: number;
  quantity: number;
  unit_price?: number;
  tax_rate?: number;
}

export interface OrderCreateInput {
  customer_id?: number;
  customer?: OrderCustomerInput;
  items: OrderItemInput[];
  status?: OrderStatus;
  payment_status?: PaymentStatus;
  currency?: string;
  shipping_total?: number;
  discount_total?: number;
  source_order_id?: string;
}

export interface OrderUpdateInput {
  status?: OrderStatus;
  payment_status?: PaymentStatus;
  payment_method?: string;
  shipping_method?: string;
  /** Accompanies a status change; max 500 characters. */
  note?: string;
  notes?: string;
  labels?: string[];
}

export interface AwbInput {
  courier?: Courier;
  weight?: number;
  parcels?: number;
  cod_amount?: number;
}

export interface CustomerUpdateInput {
  name?: string;
  email?: string;
  phone?: string;
  company_name?: string;
  cui?: string;
  reg_com?: string;
  notes?: string;
}

export interface TagCreateInput {
  name: string;
  color?: string;
}

export interface TagUpdateInput {
  name?: string;
  color?: string;
}
