import { callSingle, write } from '../call.js';
import { parseSingle, type Page } from '../envelope.js';
import type { SearchQuery, TagCreateInput, TagUpdateInput } from '../inputs.js';
import { apiObjectSchema, apiTagSchema, type ApiRecord, type ApiTag } from '../schemas.js';
import type { Transport } from '../transport.js';
import { assertId, checkProductIds, checkTag } from '../validation.js';
import { listApi } from './lists.js';

export interface TagsApi {
  list(query?: SearchQuery): Promise<Page<ApiTag>>;
  /** Not repeated on failure (a second POST could meet "duplicate name"); outcome-unknown instead. */
  create(input: TagCreateInput): Promise<ApiTag>;
  update(id: number, input: TagUpdateInput): Promise<ApiTag>;
  /** The server's deletion result, as sent. */
  delete(id: number): Promise<ApiRecord>;
  attach(id: number, productIds: number[]): Promise<ApiRecord>;
  detach(id: number, productIds: number[]): Promise<ApiRecord>;
}

export function tagsApi(transport: Transport): TagsApi {
  const link = (action: 'attach' | 'detach') => async (id: number, productIds: number[]) => {
    assertId(`tags.${action}`, id);
    checkProductIds(`tags.${action}`, productIds);
    const body = { product_ids: productIds };
    return callSingle(
      transport,
      apiObjectSchema,
      write('POST', `/tags/${id}/${action}`, `/tags/{id}/${action}`, body),
    );
  };
  return {
    list: listApi<typeof apiTagSchema, SearchQuery>(transport, 'tags', '/tags', apiTagSchema).list,
    create: async (input) => {
      checkTag(input, true);
      return callSingle(transport, apiTagSchema, write('POST', '/tags', '/tags', input, false));
    },
    update: async (id, input) => {
      assertId('tags.update', id);
      checkTag(input, false);
      return callSingle(transport, apiTagSchema, write('PUT', `/tags/${id}`, '/tags/{id}', input));
    },
    delete: async (id) => {
      assertId('tags.delete', id);
      const response = await transport.send(write('DELETE', `/tags/${id}`, '/tags/{id}', undefined));
      // 204 with no body, or a result envelope: both mean deleted.
      if (response.body === null) return { deleted: true };
      return parseSingle(apiObjectSchema, response.body, response.context);
    },
    attach: link('attach'),
    detach: link('detach'),
  };
}
