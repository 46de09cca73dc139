import type { z } from 'zod';
import { callList, get } from '../call.js';
import type { InvalidRecord, Page } from '../envelope.js';
import type { PageQuery } from '../inputs.js';
import { ITERATE_PER_PAGE, iteratePages } from '../pagination.js';
import type { Transport } from '../transport.js';
import { checkListQuery } from '../validation.js';

export interface ListApi<T, Q extends PageQuery = PageQuery> {
  list(query?: Q): Promise<Page<T>>;
}

export interface PagedApi<T, Q extends PageQuery = PageQuery> extends ListApi<T, Q> {
  /**
   * Every record matching the query, 100 per request, each key once (newest-first lists included).
   * With `onInvalid`, a record failing its schema is handed to it and the walk goes on (without it,
   * such a record fails the walk, unless the list is read with `skipInvalid` anyway).
   */
  iterate(
    query?: Omit<Q, 'page' | 'per_page'>,
    onInvalid?: (invalid: InvalidRecord, page: number) => void,
  ): AsyncGenerator<T, void, undefined>;
}

export interface ListOptions {
  /** Status values the `status` filter accepts. */
  statuses?: readonly string[];
  /** Records failing the schema go to the page's `invalid` instead of failing the page. */
  skipInvalid?: boolean;
}

/** `GET <path>` with its query checked (per_page 1..100, page >= 1, `status` among `statuses`). */
export function listApi<S extends z.ZodType, Q extends PageQuery = PageQuery>(
  transport: Transport,
  name: string,
  path: string,
  schema: S,
  options: ListOptions = {},
): ListApi<z.output<S>, Q> {
  return {
    list: async (query?: Q) => {
      checkListQuery(`${name}.list`, query ?? {}, options.statuses);
      return callList(transport, schema, get(path, path, query), { skipInvalid: options.skipInvalid });
    },
  };
}

/** listApi plus iterate(): pages of 100, walked to the end, records de-duplicated by `keyOf`. */
export function pagedApi<S extends z.ZodType, Q extends PageQuery = PageQuery>(
  transport: Transport,
  name: string,
  path: string,
  schema: S,
  keyOf: (record: z.output<S>) => string | number,
  options: ListOptions = {},
): PagedApi<z.output<S>, Q> {
  const { list } = listApi<S, Q>(transport, name, path, schema, options);
  const { list: listSkipping } = listApi<S, Q>(transport, name, path, schema, {
    ...options,
    skipInvalid: true,
  });
  return {
    list,
    iterate: (query, onInvalid) =>
      iteratePages(
        (page) => (onInvalid ? listSkipping : list)({ ...query, page, per_page: ITERATE_PER_PAGE } as Q),
        keyOf,
        onInvalid,
      ),
  };
}
