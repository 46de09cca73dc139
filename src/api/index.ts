export { createApiClient, type ApiClient, type ApiClientOptions } from './createApiClient.js';
export type { ResponseInfo, TransportOptions } from './transport.js';
export type { BulkResult, ItemRef, Page, PageMeta } from './envelope.js';
export type * from './inputs.js';
export type {
  ApiAccount,
  ApiAwb,
  ApiCategory,
  ApiCustomer,
  ApiInvoice,
  ApiOffer,
  ApiOrder,
  ApiOrderSummary,
  ApiOrderCustomer,
  ApiOrderItem,
  ApiProduct,
  ApiRecord,
  ApiReturn,
  ApiStats,
  ApiStockItem,
  ApiTag,
  ApiVariant,
} from './schemas.js';
export {
  ApiError,
  ApiValidationError,
  AuthError,
  ClientValidationError,
  ConflictError,
  HttpError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  PayloadTooLargeError,
  RateLimitedError,
  SchemaError,
  ServerError,
  TimeoutError,
  isApiError,
  type FieldErrors,
} from './errors.js';
export { fullOrder, toPlatformOrder } from './mappers.js';
export { parseRetryAfter } from './retryAfter.js';
export type { AccountApi, StatsApi } from './resources/account.js';
export type { CustomersApi } from './resources/customers.js';
export type { OrdersApi } from './resources/orders.js';
export type { ProductsApi } from './resources/products.js';
export type { IterableReadApi, ListApi, ReadApi } from './resources/readOnly.js';
export type { PagedApi } from './resources/lists.js';
export type { TagsApi } from './resources/tags.js';
