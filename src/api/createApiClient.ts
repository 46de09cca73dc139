import { accountApi, statsApi, type AccountApi, type StatsApi } from './resources/account.js';
import { customersApi, type CustomersApi } from './resources/customers.js';
import { ordersApi, type OrdersApi } from './resources/orders.js';
import { productsApi, type ProductsApi } from './resources/products.js';
import { listApi, readApi, type IterableReadApi, type ListApi, type ReadApi } from './resources/readOnly.js';
import { tagsApi, type TagsApi } from './resources/tags.js';
import {
  apiCategorySchema,
  apiObjectSchema,
  apiOfferSchema,
  apiReturnSchema,
  type ApiCategory,
  type ApiOffer,
  type ApiRecord,
  type ApiReturn,
} from './schemas.js';
import {
  HttpTransport,
  type Credentials,
  type ResponseInfo,
  type Transport,
  type TransportOptions,
} from './transport.js';

export type ApiClientOptions = TransportOptions;

export interface ApiClient {
  account: AccountApi;
  stats: StatsApi;
  products: ProductsApi;
  orders: OrdersApi;
  customers: CustomersApi;
  tags: TagsApi;
  /** `list()` returns the root categories, each with nested `children`. */
  categories: ReadApi<ApiCategory>;
  returns: IterableReadApi<ApiReturn>;
  offers: ReadApi<ApiOffer>;
  marketplaces: ListApi<ApiRecord>;
  couriers: ListApi<ApiRecord>;
  billingSoftware: ListApi<ApiRecord>;
  websites: ListApi<ApiRecord>;
  fulfillments: ListApi<ApiRecord>;
  currencies: ListApi<ApiRecord>;
  languages: ListApi<ApiRecord>;
  countries: ListApi<ApiRecord>;
  /**
   * A view of this client whose calls are also reported to `onResponse` (after any hooks of this
   * view), sharing its connection pool. One run of a pipeline counts its own requests through
   * such a view while other runs use the same client at the same time. A view's close() does
   * nothing: the client that made it owns the pool.
   */
  observe(onResponse: (info: ResponseInfo) => void): ApiClient;
  /**
   * Later requests of this client and of its views go to this base URL with this key (the daemon
   * reloading its configuration); requests already sent keep theirs.
   */
  useCredentials(credentials: Credentials): void;
  /**
   * Ends retry waits at once (those calls reject with their last error), lets requests on the wire
   * finish, then closes the connection pool. Later calls reject at once.
   */
  close(): Promise<void>;
}

/** The typed API v2 client. The only module that knows URLs, headers and error bodies. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  if (!options.apiKey) throw new TypeError('createApiClient: apiKey is required');
  const transport = new HttpTransport(options);
  return clientOver(transport, {
    close: () => transport.close(),
    useCredentials: (credentials) => transport.useCredentials(credentials),
  });
}

interface ClientControls {
  close(): Promise<void>;
  useCredentials(credentials: Credentials): void;
}

function observed(transport: Transport, onResponse: (info: ResponseInfo) => void): Transport {
  return {
    send: (spec, hooks) =>
      transport.send(spec, {
        onResponse: (info) => {
          hooks?.onResponse?.(info);
          onResponse(info);
        },
      }),
  };
}

function clientOver(transport: Transport, controls: ClientControls): ApiClient {
  const categories = readApi(transport, 'categories', '/categories', apiCategorySchema);
  const offers = readApi(transport, 'offers', '/offers', apiOfferSchema);
  return {
    account: accountApi(transport),
    stats: statsApi(transport),
    products: productsApi(transport),
    orders: ordersApi(transport),
    customers: customersApi(transport),
    tags: tagsApi(transport),
    categories: { list: categories.list, get: categories.get },
    returns: readApi(transport, 'returns', '/returns', apiReturnSchema),
    offers: { list: offers.list, get: offers.get },
    marketplaces: listApi(transport, 'marketplaces', '/marketplaces/list', apiObjectSchema),
    couriers: listApi(transport, 'couriers', '/couriers', apiObjectSchema),
    billingSoftware: listApi(transport, 'billingSoftware', '/billing-software', apiObjectSchema),
    websites: listApi(transport, 'websites', '/websites/list', apiObjectSchema),
    fulfillments: listApi(transport, 'fulfillments', '/fulfillments/list', apiObjectSchema),
    currencies: listApi(transport, 'currencies', '/general/currencies', apiObjectSchema),
    languages: listApi(transport, 'languages', '/general/languages', apiObjectSchema),
    countries: listApi(transport, 'countries', '/general/countries', apiObjectSchema),
    observe: (onResponse) =>
      clientOver(observed(transport, onResponse), {
        close: () => Promise.resolve(),
        useCredentials: controls.useCredentials,
      }),
    useCredentials: controls.useCredentials,
    close: controls.close,
  };
}
