import { PRODUCT_STATUSES } from '../../domain/limits.js';
import { callBulk, callList, callSingle, get } from '../call.js';
import type { BulkResult, Page } from '../envelope.js';
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
import { ITERATE_PER_PAGE, iteratePages } from '../pagination.js';
import { apiProductSchema, apiStockItemSchema, type ApiProduct, type ApiStockItem } from '../schemas.js';
import type { Transport } from '../transport.js';
import {
  assertId,
  checkBulkPrices,
  checkBulkStock,
  checkListQuery,
  checkPriceUpdate,
  checkProductCreate,
  checkProductUpdate,
  checkStockUpdate,
} from '../validation.js';

export interface ProductsApi {
  list(query?: ProductListQuery): Promise<Page<ApiProduct>>;
  /** Every product matching the query, 100 per request, each id once. */
  iterate(query?: Omit<ProductListQuery, 'page' | 'per_page'>): AsyncGenerator<ApiProduct, void, undefined>;
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
  const list = async (query: ProductListQuery = {}) => {
    checkListQuery('products.list', query, PRODUCT_STATUSES);
    return callList(transport, apiProductSchema, get('/products', '/products', query));
  };
  const stockList = async (query: SearchQuery = {}) => {
    checkListQuery('products.stockList', query);
    return callList(
      transport,
      apiStockItemSchema,
      get('/products/stock/list', '/products/stock/list', query),
    );
  };
  return {
    list,
    iterate: (query = {}) =>
      iteratePages(
        (page) => list({ ...query, page, per_page: ITERATE_PER_PAGE }),
        (product) => product.id,
      ),
    get: async (id) => {
      assertId('products.get', id);
      return callSingle(transport, apiProductSchema, get(`/products/${id}`, '/products/{id}'));
    },
    create: async (input) => {
      checkProductCreate(input);
      return callSingle(transport, apiProductSchema, {
        method: 'POST',
        path: '/products',
        route: '/products',
        body: input,
        idempotent: false,
      });
    },
    update: async (id, input) => {
      assertId('products.update', id);
      checkProductUpdate(input);
      return callSingle(transport, apiProductSchema, {
        method: 'PATCH',
        path: `/products/${id}`,
        route: '/products/{id}',
        body: input,
        idempotent: true,
      });
    },
    updatePrice: async (id, input) => {
      assertId('products.updatePrice', id);
      checkPriceUpdate(input);
      return callSingle(transport, apiProductSchema, {
        method: 'PATCH',
        path: `/products/${id}/price`,
        route: '/products/{id}/price',
        body: input,
        idempotent: true,
      });
    },
    updateStock: async (id, input, variantId) => {
      assertId('products.updateStock', id);
      checkStockUpdate(input, variantId);
      // A delta applied twice is two changes; only an absolute quantity may be repeated.
      const idempotent = input.quantity !== undefined;
      return callSingle(transport, apiProductSchema, {
        method: 'PATCH',
        path: `/products/${id}/stock`,
        route: '/products/{id}/stock',
        body: variantId === undefined ? input : { ...input, variant_id: variantId },
        idempotent,
      });
    },
    bulkPrices: async (items) => {
      checkBulkPrices(items);
      return callBulk(transport, {
        method: 'PATCH',
        path: '/products/prices/bulk',
        route: '/products/prices/bulk',
        body: { items },
        idempotent: true,
      });
    },
    bulkStock: async (items) => {
      checkBulkStock(items);
      return callBulk(transport, {
        method: 'PATCH',
        path: '/products/stock/bulk',
        route: '/products/stock/bulk',
        body: { items },
        idempotent: !items.some((item) => item.delta !== undefined),
      });
    },
    stockList,
    iterateStock: (query = {}) =>
      iteratePages((page) => stockList({ ...query, page, per_page: ITERATE_PER_PAGE }), stockKey),
  };
}
