import { validationError, type FieldErrors } from './apiError.js';
import { isoSeconds, parseIsoDate } from './time.js';

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export interface ListMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
}

type Query = Record<string, unknown>;

/** Reads and validates list query parameters; any bad value is one 422 naming each parameter. */
export class ListQuery {
  private readonly errors: FieldErrors = {};

  constructor(private readonly query: Query) {}

  private raw(name: string): string | undefined {
    const v = this.query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      this.errors[name] = ['must be given once'];
      return undefined;
    }
    return v;
  }

  page(): Page {
    const perPage = this.int('per_page', 1, 100) ?? 50;
    const page = this.int('page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
    return { page, perPage, offset: (page - 1) * perPage };
  }

  search(): string | undefined {
    const v = this.raw('search');
    if (v === undefined) return undefined;
    const trimmed = v.trim();
    return trimmed === '' ? undefined : trimmed.toLocaleLowerCase('en');
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.errors[name] = [`must be one of: ${values.join(', ')}`];
    return undefined;
  }

  /** The ISO second a record's `updated_at` must be strictly greater than. */
  after(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const ms = parseIsoDate(v);
    if (ms === null) {
      this.errors[name] = ['must be an ISO 8601 date or date-time'];
      return undefined;
    }
    return isoSeconds(ms);
  }

  private int(name: string, min: number, max: number): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
      this.errors[name] = [
        max === Number.MAX_SAFE_INTEGER
          ? `must be an integer of at least ${min}`
          : `must be an integer from ${min} to ${max}`,
      ];
      return undefined;
    }
    return Number(v);
  }

  /** Throws the collected 422, if any. Call after reading every parameter. */
  done(): void {
    if (Object.keys(this.errors).length > 0) throw validationError(this.errors);
  }
}

export function listEnvelope<T>(data: T[], page: Page, total: number): { data: T[]; meta: ListMeta } {
  return {
    data,
    meta: {
      current_page: page.page,
      per_page: page.perPage,
      total,
      last_page: Math.max(1, Math.ceil(total / page.perPage)),
    },
  };
}
