import type { z } from 'zod';
import { SchemaError, type RequestContext } from './errors.js';
import { bulkResultSchema, pageMetaSchema } from './schemas.js';

export interface PageMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
  /** Records that failed their schema, left out of `data` (lists read with `skipInvalid` only). */
  invalid?: InvalidRecord[];
}

/** A list record that failed its schema: the record as received and the error naming the field. */
export interface InvalidRecord {
  index: number;
  record: unknown;
  error: SchemaError;
}

/** Identifies a bulk item as the caller sent it (or as the server echoed it). */
export interface ItemRef {
  id?: number;
  sku?: string;
  variant_id?: number;
  variant_sku?: string;
}

export interface BulkResult {
  updated: number;
  notFound: ItemRef[];
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function check<S extends z.ZodType>(
  schema: S,
  value: unknown,
  context: RequestContext,
  at: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [at, fieldPath(issue?.path ?? [])].filter(Boolean).join('.');
  throw new SchemaError(
    `${context.method} ${context.route}: unexpected response shape at '${field || '(body)'}': ${issue?.message ?? 'invalid'}`,
    context,
    field,
  );
}

function dataOf(body: unknown, context: RequestContext): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('data' in body)) {
    throw new SchemaError(
      `${context.method} ${context.route}: response has no 'data' envelope`,
      context,
      'data',
    );
  }
  return (body as { data: unknown }).data;
}

/** `{ "data": <object> }` */
export function parseSingle<S extends z.ZodType>(
  schema: S,
  body: unknown,
  context: RequestContext,
): z.output<S> {
  return check(schema, dataOf(body, context), context, 'data');
}

/**
 * `{ "data": [...], "meta": {...} }`; a bare array or missing meta fields are tolerated (meta is then
 * derived from what is there). `requestedPerPage` helps to guess whether another page exists.
 * With `skipInvalid`, a record that fails its schema is set aside in `invalid` instead of failing
 * the page: one odd record must not hide the others.
 */
export function parseList<S extends z.ZodType>(
  schema: S,
  body: unknown,
  context: RequestContext,
  requested: { page?: number | undefined; per_page?: number | undefined } = {},
  options: { skipInvalid?: boolean } = {},
): Page<z.output<S>> {
  const rawData = Array.isArray(body) ? body : dataOf(body, context);
  if (!Array.isArray(rawData)) {
    throw new SchemaError(`${context.method} ${context.route}: 'data' is not a list`, context, 'data');
  }
  const data: z.output<S>[] = [];
  const invalid: InvalidRecord[] = [];
  rawData.forEach((item: unknown, index) => {
    try {
      data.push(check(schema, item, context, `data.${index}`));
    } catch (error) {
      if (!options.skipInvalid || !(error instanceof SchemaError)) throw error;
      invalid.push({ index, record: item, error });
    }
  });
  const rawMeta = Array.isArray(body) ? {} : (body as { meta?: unknown }).meta;
  const meta = check(pageMetaSchema, rawMeta ?? {}, context, 'meta');
  // Page arithmetic counts the records received, valid or not.
  const received = rawData.length;
  const currentPage = meta.current_page ?? requested.page ?? 1;
  const perPage = meta.per_page ?? requested.per_page ?? Math.max(received, 1);
  const total = meta.total ?? (currentPage - 1) * perPage + received;
  let lastPage = meta.last_page;
  if (lastPage === undefined) {
    if (meta.total !== undefined) lastPage = Math.ceil(meta.total / perPage);
    else lastPage = received >= perPage && received > 0 ? currentPage + 1 : currentPage;
  }
  const page: Page<z.output<S>> = {
    data,
    meta: { current_page: currentPage, per_page: perPage, total, last_page: Math.max(1, lastPage) },
  };
  if (options.skipInvalid) page.invalid = invalid;
  return page;
}

function toItemRef(entry: unknown): ItemRef {
  if (typeof entry === 'string') return { sku: entry };
  if (typeof entry === 'number') return { id: entry };
  const source = entry as Record<string, unknown>;
  const ref: ItemRef = {};
  if (typeof source.id === 'number') ref.id = source.id;
  else if (typeof source.product_id === 'number') ref.id = source.product_id;
  if (typeof source.sku === 'string') ref.sku = source.sku;
  if (typeof source.variant_id === 'number') ref.variant_id = source.variant_id;
  if (typeof source.variant_sku === 'string') ref.variant_sku = source.variant_sku;
  return ref;
}

/** The identifiers of a sent bulk item, as the caller wrote them. */
function refOfSent(item: ItemRef): ItemRef {
  const ref: ItemRef = {};
  if (item.id !== undefined) ref.id = item.id;
  if (item.sku !== undefined) ref.sku = item.sku;
  if (item.variant_id !== undefined) ref.variant_id = item.variant_id;
  if (item.variant_sku !== undefined) ref.variant_sku = item.variant_sku;
  return ref;
}

const hasVariant = (item: ItemRef) => item.variant_id !== undefined || item.variant_sku !== undefined;

/** Sent items a not_found entry can mean, most specific reading first. */
function candidates(entry: unknown, ref: ItemRef, sent: readonly ItemRef[]): ItemRef[] {
  const first = (...groups: ItemRef[][]) => groups.find((group) => group.length > 0) ?? [];
  if (typeof entry === 'string') {
    return first(
      sent.filter((item) => item.sku === entry && !hasVariant(item)),
      sent.filter((item) => item.variant_sku === entry),
      sent.filter((item) => item.sku === entry),
    );
  }
  if (typeof entry === 'number') {
    return first(
      sent.filter((item) => item.id === entry && !hasVariant(item)),
      sent.filter((item) => item.variant_id === entry),
      sent.filter((item) => item.id === entry),
    );
  }
  const keys = Object.keys(ref) as (keyof ItemRef)[];
  if (keys.length === 0) return [];
  return sent.filter((item) => keys.every((key) => item[key] === ref[key]));
}

/**
 * A bulk price or stock result, whatever plausible shape the server chose. With the items `sent`,
 * each not_found entry that names exactly one of them (a bare variant SKU, an id, a partial object)
 * is reported with that item's identifiers as sent, so callers can match it whatever form the
 * server used; an entry that names none, or several, is reported as read.
 */
export function parseBulk(body: unknown, context: RequestContext, sent: readonly ItemRef[] = []): BulkResult {
  const inner =
    body && typeof body === 'object' && !Array.isArray(body) && 'data' in body
      ? (body as { data: unknown }).data
      : body;
  const at = inner === body ? '' : 'data';
  const parsed = check(bulkResultSchema, inner, context, at);
  const updated = Array.isArray(parsed.updated) ? parsed.updated.length : (parsed.updated ?? 0);
  const notFound = (parsed.not_found ?? []).map((entry) => {
    const ref = toItemRef(entry);
    const matches = candidates(entry, ref, sent);
    return matches.length === 1 ? { ...ref, ...refOfSent(matches[0]!) } : ref;
  });
  return { updated, notFound };
}
