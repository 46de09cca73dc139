import type { z } from 'zod';
import { callList, callSingle, get } from '../call.js';
import type { Page } from '../envelope.js';
import type { PageQuery } from '../inputs.js';
import { ITERATE_PER_PAGE, iteratePages } from '../pagination.js';
import type { Transport } from '../transport.js';
import { assertId, checkListQuery } from '../validation.js';

export interface ListApi<T> {
  list(query?: PageQuery): Promise<Page<T>>;
}

export interface ReadApi<T> extends ListApi<T> {
  get(id: number): Promise<T>;
}

export interface IterableReadApi<T> extends ReadApi<T> {
  iterate(): AsyncGenerator<T, void, undefined>;
}

/** A list endpoint of a read-only resource (categories, returns, offers, connections, reference data). */
export function listApi<S extends z.ZodType>(
  transport: Transport,
  name: string,
  path: string,
  schema: S,
): ListApi<z.output<S>> {
  return {
    list: async (query = {}) => {
      checkListQuery(`${name}.list`, query);
      return callList(transport, schema, get(path, path, query));
    },
  };
}

export function readApi<S extends z.ZodType<{ id: number }>>(
  transport: Transport,
  name: string,
  path: string,
  schema: S,
): IterableReadApi<z.output<S>> {
  const { list } = listApi(transport, name, path, schema);
  return {
    list,
    iterate: () =>
      iteratePages(
        (page) => list({ page, per_page: ITERATE_PER_PAGE }),
        (record) => record.id,
      ),
    get: async (id) => {
      assertId(`${name}.get`, id);
      return callSingle(transport, schema, get(`${path}/${id}`, `${path}/{id}`));
    },
  };
}
