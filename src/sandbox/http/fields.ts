import { validationError, type FieldErrors } from './apiError.js';

export type Obj = Record<string, unknown>;

/** The entries whose value is not undefined: the fields a request actually set. */
export function definedOnly(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects reasons per field path (e.g. `items.3.quantity`) so one 422 can name every problem. */
export class Issues {
  readonly map: FieldErrors = {};

  add(path: string, reason: string): void {
    (this.map[path] ??= []).push(reason);
  }

  get count(): number {
    return Object.keys(this.map).length;
  }

  throwIfAny(): void {
    if (this.count > 0) throw validationError(this.map);
  }
}

/**
 * SKUs are stored and looked up in one form: Unicode NFC, without surrounding blanks. So `Ș` sent
 * decomposed (S + combining comma) and ` A-1 ` name the products `Ș` and `A-1`, never a second,
 * identical-looking product.
 */
export function normaliseSku(sku: string): string {
  return sku.normalize('NFC').trim();
}

/** Lines of one order: a marketplace order of hundreds of lines is real, thousands are not. */
export const MAX_ORDER_LINES = 500;

/** Bounds for every number read from a body, so no amount or quantity can overflow into Infinity or lose precision. */
export const MAX_AMOUNT = 999_999_999.99;
export const MAX_INTEGER = 1_000_000_000;

interface Common {
  required?: boolean;
  nullable?: boolean;
}

/**
 * Typed reads of one JSON object's fields. Each read returns `undefined` when the field is absent
 * (or invalid, after recording why), `null` when null is allowed and sent, else the value.
 */
export class Fields {
  constructor(
    readonly obj: Obj,
    readonly issues: Issues,
    readonly prefix = '',
  ) {}

  path(key: string): string {
    return this.prefix ? `${this.prefix}.${key}` : key;
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined;
  }

  private start(key: string, opts: Common): 'absent' | 'null' | 'value' {
    const v = this.obj[key];
    if (v === undefined) {
      if (opts.required) this.issues.add(this.path(key), 'is required');
      return 'absent';
    }
    if (v === null) {
      if (opts.nullable && !opts.required) return 'null';
      this.issues.add(this.path(key), opts.required ? 'is required' : 'must not be null');
      return 'absent';
    }
    return 'value';
  }

  string(key: string, opts: Common & { max?: number; nonEmpty?: boolean } = {}): string | null | undefined {
    const s = this.start(key, opts);
    if (s !== 'value') return s === 'null' ? null : undefined;
    const v = this.obj[key];
    if (typeof v !== 'string') return this.fail(key, 'must be a string');
    if ((opts.nonEmpty || opts.required) && v.trim() === '') return this.fail(key, 'must not be empty');
    if (opts.max !== undefined && [...v].length > opts.max)
      return this.fail(key, `must be at most ${opts.max} characters`);
    return v;
  }

  /** A SKU (see normaliseSku): checked and returned in its normal form. */
  sku(key: string, opts: Common & { max?: number; nonEmpty?: boolean } = {}): string | null | undefined {
    const value = this.string(key, opts);
    return typeof value === 'string' ? normaliseSku(value) : value;
  }

  integer(key: string, opts: Common & { min?: number; max?: number } = {}): number | null | undefined {
    const s = this.start(key, opts);
    if (s !== 'value') return s === 'null' ? null : undefined;
    const v = this.obj[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return this.fail(key, 'must be an integer');
    return this.range(key, v, { min: opts.min ?? -MAX_INTEGER, max: opts.max ?? MAX_INTEGER });
  }

  number(key: string, opts: Common & { min?: number; max?: number } = {}): number | null | undefined {
    const s = this.start(key, opts);
    if (s !== 'value') return s === 'null' ? null : undefined;
    const v = this.obj[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.fail(key, 'must be a number');
    return this.range(key, v, { min: opts.min ?? -MAX_AMOUNT, max: opts.max ?? MAX_AMOUNT });
  }

  boolean(key: string, opts: Common = {}): boolean | undefined {
    if (this.start(key, opts) !== 'value') return undefined;
    const v = this.obj[key];
    return typeof v === 'boolean' ? v : this.fail(key, 'must be true or false');
  }

  oneOf<T extends string>(key: string, values: readonly T[], opts: Common = {}): T | undefined {
    if (this.start(key, opts) !== 'value') return undefined;
    const v = this.obj[key];
    return typeof v === 'string' && (values as readonly string[]).includes(v)
      ? (v as T)
      : this.fail(key, `must be one of: ${values.join(', ')}`);
  }

  stringArray(key: string, opts: Common & { maxItem?: number } = {}): string[] | undefined {
    if (this.start(key, opts) !== 'value') return undefined;
    const v = this.obj[key];
    if (!Array.isArray(v)) return this.fail(key, 'must be an array of strings');
    let ok = true;
    v.forEach((item, i) => {
      if (typeof item !== 'string') {
        this.issues.add(`${this.path(key)}.${i}`, 'must be a string');
        ok = false;
      } else if (opts.maxItem !== undefined && [...item].length > opts.maxItem) {
        this.issues.add(`${this.path(key)}.${i}`, `must be at most ${opts.maxItem} characters`);
        ok = false;
      }
    });
    return ok ? (v as string[]) : undefined;
  }

  private range(key: string, v: number, opts: { min: number; max: number }): number | undefined {
    if (v < opts.min) return this.fail(key, `must be at least ${opts.min}`);
    if (v > opts.max) return this.fail(key, `must be at most ${opts.max}`);
    return v;
  }

  private fail(key: string, reason: string): undefined {
    this.issues.add(this.path(key), reason);
    return undefined;
  }
}

/** The request body as an object, or a 422 naming `body`. */
export function bodyObject(body: unknown, { optional = false } = {}): Obj {
  if (body === undefined || body === null) {
    if (optional) return {};
    throw validationError({ body: ['a JSON object is required'] });
  }
  if (!isObject(body)) throw validationError({ body: ['must be a JSON object'] });
  return body;
}
