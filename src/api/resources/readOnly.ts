import type { z } from 'zod';
import { callSingle, get } from '../call.js';
import type { Transport } from '../transport.js';
import { assertId } from '../validation.js';
import { pagedApi, type ListApi, type PagedApi } from './lists.js';

export { listApi, type ListApi } from './lists.js';

export interface ReadApi<T> extends ListApi<T> {
  get(id: number): Promise<T>;
}

export interface IterableReadApi<T> extends ReadApi<T>, PagedApi<T> {
  iterate(): AsyncGenerator<T, void, undefined>;
}

/** A read-only resource with `GET <path>` and `GET <path>/{id}` (categories, returns, offers). */
export function readApi<S extends z.ZodType<{ id: number }>>(
  transport: Transport,
  name: string,
  path: string,
  schema: S,
): IterableReadApi<z.output<S>> {
  const { list, iterate } = pagedApi(transport, name, path, schema, (record) => record.id);
  return {
    list,
    iterate: () => iterate(),
    get: async (id) => {
      assertId(`${name}.get`, id);
      return callSingle(transport, schema, get(`${path}/${id}`, `${path}/{id}`));
    },
  };
}
