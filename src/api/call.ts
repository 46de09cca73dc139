import type { z } from 'zod';
import { parseBulk, parseList, parseSingle, type BulkResult, type ItemRef, type Page } from './envelope.js';
import type { HttpMethod, QueryValue, RequestSpec, Transport } from './transport.js';

export type Query = Record<string, QueryValue>;

export function toQuery(query: object | undefined): Query | undefined {
  return query as Query | undefined;
}

/** One request whose answer is `{ "data": <record> }`. */
export async function callSingle<S extends z.ZodType>(
  transport: Transport,
  schema: S,
  spec: RequestSpec,
): Promise<z.output<S>> {
  const response = await transport.send(spec);
  return parseSingle(schema, response.body, response.context);
}

/** One request whose answer is a list envelope (`skipInvalid`: see parseList). */
export async function callList<S extends z.ZodType>(
  transport: Transport,
  schema: S,
  spec: RequestSpec,
  options: { skipInvalid?: boolean } = {},
): Promise<Page<z.output<S>>> {
  const response = await transport.send(spec);
  const query = spec.query ?? {};
  const requested = {
    page: typeof query.page === 'number' ? query.page : undefined,
    per_page: typeof query.per_page === 'number' ? query.per_page : undefined,
  };
  return parseList(schema, response.body, response.context, requested, options);
}

/** A bulk write of `items` (sent as `{ items }`); not_found entries are matched back to them. */
export async function callBulk(
  transport: Transport,
  spec: RequestSpec,
  items: readonly ItemRef[],
): Promise<BulkResult> {
  const response = await transport.send(spec);
  return parseBulk(response.body, response.context, items);
}

export function get(path: string, route: string, query?: object): RequestSpec {
  return { method: 'GET', path, route, query: toQuery(query), idempotent: true };
}

/**
 * A write. `idempotent` says whether repeating it cannot apply it twice (PUT, PATCH, DELETE, and the
 * POSTs the spec calls idempotent); a create passes false and is never repeated blindly.
 */
export function write(
  method: Exclude<HttpMethod, 'GET'>,
  path: string,
  route: string,
  body: unknown,
  idempotent = true,
): RequestSpec {
  return { method, path, route, body, idempotent };
}
