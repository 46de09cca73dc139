import { callList, callSingle, get } from '../call.js';
import type { Page } from '../envelope.js';
import type { CustomerUpdateInput, SearchQuery } from '../inputs.js';
import { ITERATE_PER_PAGE, iteratePages } from '../pagination.js';
import { apiCustomerSchema, type ApiCustomer } from '../schemas.js';
import type { Transport } from '../transport.js';
import { assertId, checkCustomerUpdate, checkListQuery } from '../validation.js';

export interface CustomersApi {
  list(query?: SearchQuery): Promise<Page<ApiCustomer>>;
  iterate(query?: Omit<SearchQuery, 'page' | 'per_page'>): AsyncGenerator<ApiCustomer, void, undefined>;
  get(id: number): Promise<ApiCustomer>;
  update(id: number, input: CustomerUpdateInput): Promise<ApiCustomer>;
}

export function customersApi(transport: Transport): CustomersApi {
  const list = async (query: SearchQuery = {}) => {
    checkListQuery('customers.list', query);
    return callList(transport, apiCustomerSchema, get('/customers', '/customers', query));
  };
  return {
    list,
    iterate: (query = {}) =>
      iteratePages(
        (page) => list({ ...query, page, per_page: ITERATE_PER_PAGE }),
        (customer) => customer.id,
      ),
    get: async (id) => {
      assertId('customers.get', id);
      return callSingle(transport, apiCustomerSchema, get(`/customers/${id}`, '/customers/{id}'));
    },
    update: async (id, input) => {
      assertId('customers.update', id);
      checkCustomerUpdate(input);
      return callSingle(transport, apiCustomerSchema, {
        method: 'PATCH',
        path: `/customers/${id}`,
        route: '/customers/{id}',
        body: input,
        idempotent: true,
      });
    },
  };
}
