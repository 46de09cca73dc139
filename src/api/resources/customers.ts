import { callSingle, get, write } from '../call.js';
import type { Page } from '../envelope.js';
import type { CustomerUpdateInput, SearchQuery } from '../inputs.js';
import { apiCustomerSchema, type ApiCustomer } from '../schemas.js';
import type { Transport } from '../transport.js';
import { assertId, checkCustomerUpdate } from '../validation.js';
import { pagedApi } from './lists.js';

export interface CustomersApi {
  list(query?: SearchQuery): Promise<Page<ApiCustomer>>;
  iterate(query?: Omit<SearchQuery, 'page' | 'per_page'>): AsyncGenerator<ApiCustomer, void, undefined>;
  get(id: number): Promise<ApiCustomer>;
  update(id: number, input: CustomerUpdateInput): Promise<ApiCustomer>;
}

export function customersApi(transport: Transport): CustomersApi {
  const { list, iterate } = pagedApi<typeof apiCustomerSchema, SearchQuery>(
    transport,
    'customers',
    '/customers',
    apiCustomerSchema,
    (customer) => customer.id,
  );
  return {
    list,
    iterate,
    get: async (id) => {
      assertId('customers.get', id);
      return callSingle(transport, apiCustomerSchema, get(`/customers/${id}`, '/customers/{id}'));
    },
    update: async (id, input) => {
      assertId('customers.update', id);
      checkCustomerUpdate(input);
      return callSingle(
        transport,
        apiCustomerSchema,
        write('PATCH', `/customers/${id}`, '/customers/{id}', input),
      );
    },
  };
}
