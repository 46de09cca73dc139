import { PRODUCT_STATUSES } from '../../domain/limits.js';
import { callBulk, callSingle, get, write } from '../call.js';
import type { BulkResult, InvalidRecord, Page } from '../envelope.js';
import type {
  BulkPriceItem,
  BulkStockItem,
  PriceUpdateInput,
  ProductCreateInput,
  ProductListQuery,
  ProductUpdateInput,
  SearchQuery,
  StockUpdateInput,
} from '../inputs.js';
import { apiProductSchema, apiStockItemSchema, type ApiProduct, type ApiStockItem } from '../schemas.js';
import type { Transport } from '../transport.js';
import {
  assertId,
  checkBulkPrices,
  checkBulkStock,
  checkPriceUpdate,
  checkProductCreate,
  checkProductUpdate,
  checkStockUpdate,
} from '../validation.js';
import { pagedApi } from './lists.js';

export interface ProductsApi {
  list(query?: ProductListQuery): Promise<Page<ApiProduct>>;
  /**
   * Every product matching the query, 100 per request, each id once; with `onInvalid`, a record
   * failing its schema is handed to it and the others go on.
   */
  iterate(
    query?: Omit<ProductListQuery, 'page' | 'per_page'>,
    onInvalid?: (invalid: InvalidRecord, page: number) => void,
  ): AsyncGenerator<ApiProduct, void, undefined>;
  get(id: number): Promise<ApiProduct>;
  /** Not repeated on failure: a lost answer is an OutcomeUnknownError (reconcile by SKU). */
  create(input: ProductCreateInput): Promise<ApiProduct>;
  update(id: number, input: ProductUpdateInput): Promise<ApiProduct>;
  updatePrice(id: number, input: PriceUpdateInput): Promise<ApiProduct>;
  updateStock(id: number, input: StockUpdateInput, variantId?: number): Promise<ApiProduct>;
  bulkPrices(items: BulkPriceItem[]): Promise<BulkResult>;
  bulkStock(items: BulkStockItem[]): Promise<BulkResult>;
  stockList(query?: SearchQuery): Promise<Page<ApiStockItem>>;
  iterateStock(query?: Omit<SearchQuery, 'page' | 'per_page'>): AsyncGenerator<ApiStockItem, void, undefined>;
}

function stockKey(item: ApiStockItem): string {
  return `${item.id ?? item.product_id ?? ''}|${item.sku ?? ''}|${String(item.variant_id ?? '')}`;
}

export function productsApi(transport: Transport): ProductsApi {
  const products = pagedApi<typeof apiProductSchema, ProductListQuery>(
    transport,
    'products',
    '/products',
    apiProductSchema,
    (product) => product.id,
    { statuses: PRODUCT_STATUSES },
  );
  const stock = pagedApi<typeof apiStockItemSchema, SearchQuery>(
    transport,
    'products.stock',
    '/products/stock/list',
    apiStockItemSchema,
    stockKey,
  );
  const patch = (path: string, route: string, body: unknown, idempotent = true) =>
    callSingle(transport, apiProductSchema, write('PATCH', path, route, body, idempotent));
  return {
    list: products.list,
    iterate: products.iterate,
    get: async (id) => {
      assertId('products.get', id);
      return callSingle(transport, apiProductSchema, get(`/products/${id}`, '/products/{id}'));
    },
    create: async (input) => {
      checkProductCreate(input);
      return callSingle(transport, apiProductSchema, write('POST', '/products', '/products', input, false));
    },
    update: async (id, input) => {
      assertId('products.update', id);
      checkProductUpdate(input);
      return patch(`/products/${id}`, '/products/{id}', input);
    },
    updatePrice: async (id, input) => {
      assertId('products.updatePrice', id);
      checkPriceUpdate(input);
      return patch(`/products/${id}/price`, '/products/{id}/price', input);
    },
    updateStock: async (id, input, variantId) => {
      assertId('products.updateStock', id);
      checkStockUpdate(input, variantId);
      const body = variantId === undefined ? input : { ...input, variant_id: variantId };
      // A delta applied twice is two changes; only an absolute quantity may be repeated.
      return patch(`/products/${id}/stock`, '/products/{id}/stock', body, input.quantity !== undefined);
    },
    bulkPrices: async (items) => {
      checkBulkPrices(items);
      return callBulk(
        transport,
        write('PATCH', '/products/prices/bulk', '/products/prices/bulk', { items }),
        items,
      );
    },
    bulkStock: async (items) => {
      checkBulkStock(items);
      const idempotent = !items.some((item) => item.delta !== undefined);
      return callBulk(
        transport,
        write('PATCH', '/products/stock/bulk', '/products/stock/bulk', { items }, idempotent),
        items,
      );
    },
    stockList: (query) => stock.list(query),
    iterateStock: (query) => stock.iterate(query),
  };
}
