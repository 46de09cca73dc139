import {
  COURIERS,
  LIMITS,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  PRODUCT_STATUSES,
  PRODUCT_TYPES,
  PRODUCT_WRITABLE_FIELDS,
} from '../domain/limits.js';
import { ClientValidationError, type FieldErrors } from './errors.js';

/*
 * Checks inputs against the rules and limits of sections 2 and 8 of the spec before anything is
 * sent. Every violation is collected under its field path (`items.3.quantity`), then thrown at once.
 */

type Input = Record<string, unknown>;

/** Length in characters (code points), as the spec and the server count it: an emoji is one. */
function length(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

interface NumberRule {
  min?: number;
  max?: number;
  integer?: boolean;
}

// The rules a bulk body checks on every item, built once (not an object per item and field).
const ID = { integer: true, min: 1 } as const;
const REQUIRED_ID = { ...ID, required: true } as const;
const NON_EMPTY = { nonEmpty: true } as const;
const NOT_NEGATIVE = { min: 0 } as const;
const WHOLE = { integer: true } as const;
const STOCK_QUANTITY = { integer: true, min: LIMITS.stockQuantityMin } as const;
const VAT_RATE = { integer: true, min: LIMITS.vatRateMin, max: LIMITS.vatRateMax } as const;

export class InputCheck {
  readonly errors: FieldErrors = {};
  /** The bulk item being checked: its fields are reported as `items.<index>.<field>`. */
  #item: number | null = null;

  /**
   * Checks the fields of one bulk item from here on (null: the input itself). Its field paths are
   * built only for a violation: a 1000-item bulk body would otherwise build 7000 strings to report nothing.
   */
  inItem(index: number | null): void {
    this.#item = index;
  }

  add(field: string, reason: string): void {
    const at = this.#item === null ? field : `items.${this.#item}.${field}`;
    (this.errors[at] ??= []).push(reason);
  }

  has(input: Input, key: string): boolean {
    return input[key] !== undefined;
  }

  string(
    input: Input,
    key: string,
    rule: { required?: boolean; max?: number; nonEmpty?: boolean } = {},
    at = key,
  ): void {
    const value = input[key];
    if (value === undefined || value === null) {
      if (rule.required) this.add(at, 'is required');
      return;
    }
    if (typeof value !== 'string') return this.add(at, 'must be a string');
    if ((rule.required || rule.nonEmpty) && value.trim() === '') this.add(at, 'must not be empty');
    if (rule.max !== undefined && length(value) > rule.max)
      this.add(at, `must be at most ${rule.max} characters`);
  }

  number(input: Input, key: string, rule: NumberRule & { required?: boolean } = {}, at = key): void {
    const value = input[key];
    if (value === undefined || value === null) {
      if (rule.required) this.add(at, 'is required');
      return;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.add(at, 'must be a number');
    if (rule.integer && !Number.isInteger(value)) return this.add(at, 'must be an integer');
    if (rule.min !== undefined && value < rule.min) this.add(at, `must be at least ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) this.add(at, `must be at most ${rule.max}`);
  }

  id(input: Input, key: string, required = false, at = key): void {
    this.number(input, key, required ? REQUIRED_ID : ID, at);
  }

  boolean(input: Input, key: string, at = key): void {
    const value = input[key];
    if (value !== undefined && typeof value !== 'boolean') this.add(at, 'must be true or false');
  }

  oneOf(input: Input, key: string, values: readonly string[], at = key): void {
    const value = input[key];
    if (value === undefined) return;
    if (typeof value !== 'string' || !values.includes(value))
      this.add(at, `must be one of ${values.join(', ')}`);
  }

  stringList(input: Input, key: string, maxEach?: number, at = key): void {
    const value = input[key];
    if (value === undefined) return;
    if (!Array.isArray(value)) return this.add(at, 'must be a list of strings');
    value.forEach((item, index) => {
      if (typeof item !== 'string') this.add(`${at}.${index}`, 'must be a string');
      else if (maxEach !== undefined && length(item) > maxEach) {
        this.add(`${at}.${index}`, `must be at most ${maxEach} characters`);
      }
    });
  }

  atLeastOne(input: Input, keys: readonly string[]): void {
    if (!keys.some((key) => input[key] !== undefined)) {
      this.add('(body)', `needs at least one of ${keys.join(', ')}`);
    }
  }

  throwIfAny(operation: string): void {
    if (Object.keys(this.errors).length > 0) throw new ClientValidationError(operation, this.errors);
  }
}

function asInput(value: unknown): Input {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Input) : {};
}

function requireObject(check: InputCheck, value: unknown, at: string): Input | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    check.add(at, 'must be an object');
    return null;
  }
  return value as Input;
}

export function assertId(operation: string, id: unknown, field = 'id'): void {
  const check = new InputCheck();
  check.id({ [field]: id }, field, true);
  check.throwIfAny(operation);
}

export function checkListQuery(operation: string, query: unknown, statuses?: readonly string[]): void {
  const check = new InputCheck();
  const input = asInput(query);
  check.number(input, 'per_page', { integer: true, min: LIMITS.perPageMin, max: LIMITS.perPageMax });
  check.number(input, 'page', { integer: true, min: 1 });
  check.string(input, 'search');
  if (statuses) check.oneOf(input, 'status', statuses);
  const after = input.updated_after;
  if (after !== undefined) {
    if (typeof after !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(after) || Number.isNaN(Date.parse(after))) {
      check.add('updated_after', 'must be an ISO 8601 date or date-time');
    }
  }
  check.throwIfAny(operation);
}

const PRICE_FIELDS = ['price', 'sale_price', 'cost_price', 'vat_rate'] as const;

function checkPriceFields(check: InputCheck, input: Input): void {
  // null clears sale_price (and cost_price); a product cannot be without a price or VAT rate.
  for (const key of ['price', 'vat_rate']) if (input[key] === null) check.add(key, 'must not be null');
  for (const key of ['price', 'sale_price', 'cost_price']) check.number(input, key, NOT_NEGATIVE);
  check.number(input, 'vat_rate', VAT_RATE);
}

function checkProductFields(check: InputCheck, input: Input, creating: boolean): void {
  check.string(input, 'name', { required: creating, nonEmpty: true, max: LIMITS.productNameMax });
  check.oneOf(input, 'status', PRODUCT_STATUSES);
  if (creating) check.oneOf(input, 'type', PRODUCT_TYPES);
  else if (input.type !== undefined) check.add('type', 'is set only on create');
  for (const key of ['sku', 'slug', 'ean', 'mpn', 'short_description', 'long_description'])
    check.string(input, key);
  for (const key of ['meta_title', 'meta_description']) check.string(input, key);
  check.id(input, 'brand_id');
  check.id(input, 'category_id');
  checkPriceFields(check, input);
  check.number(input, 'stock_quantity', { integer: true, min: LIMITS.stockQuantityMin });
  check.boolean(input, 'track_stock');
  check.stringList(input, 'highlights');
  for (const key of ['weight_grams', 'length_mm', 'width_mm', 'height_mm']) {
    check.number(input, key, { integer: true, min: 0 });
  }
}

export function checkProductCreate(input: unknown): void {
  const check = new InputCheck();
  checkProductFields(check, asInput(input), true);
  check.throwIfAny('products.create');
}

export function checkProductUpdate(input: unknown): void {
  const check = new InputCheck();
  const fields = asInput(input);
  checkProductFields(check, fields, false);
  check.atLeastOne(fields, PRODUCT_WRITABLE_FIELDS);
  check.throwIfAny('products.update');
}

export function checkPriceUpdate(input: unknown): void {
  const check = new InputCheck();
  const fields = asInput(input);
  checkPriceFields(check, fields);
  check.atLeastOne(fields, PRICE_FIELDS);
  check.throwIfAny('products.updatePrice');
}

function checkStockChange(check: InputCheck, input: Input): void {
  const hasQuantity = input.quantity !== undefined;
  const hasDelta = input.delta !== undefined;
  if (hasQuantity && hasDelta) check.add('quantity', 'send quantity or delta, not both');
  if (!hasQuantity && !hasDelta) check.add('quantity', 'quantity or delta is required');
  check.number(input, 'quantity', STOCK_QUANTITY);
  check.number(input, 'delta', WHOLE);
}

export function checkStockUpdate(input: unknown, variantId: unknown): void {
  const check = new InputCheck();
  checkStockChange(check, asInput(input));
  check.id({ variant_id: variantId }, 'variant_id');
  check.throwIfAny('products.updateStock');
}

function checkBulk(operation: string, items: unknown, checkItem: (check: InputCheck, item: Input) => void) {
  const check = new InputCheck();
  if (!Array.isArray(items)) {
    check.add('items', 'must be a list');
  } else {
    if (items.length === 0) check.add('items', 'must hold at least one item');
    if (items.length > LIMITS.bulkItemsMax)
      check.add('items', `must hold at most ${LIMITS.bulkItemsMax} items`);
    for (let index = 0; index < items.length; index++) {
      const item = requireObject(check, items[index], `items.${index}`);
      if (!item) continue;
      check.inItem(index);
      if (item.id === undefined && item.sku === undefined) check.add('id', 'id or sku is required');
      check.id(item, 'id');
      check.string(item, 'sku', NON_EMPTY);
      check.id(item, 'variant_id');
      check.string(item, 'variant_sku', NON_EMPTY);
      checkItem(check, item);
      check.inItem(null);
    }
  }
  check.throwIfAny(operation);
}

export function checkBulkStock(items: unknown): void {
  checkBulk('products.bulkStock', items, checkStockChange);
}

export function checkBulkPrices(items: unknown): void {
  checkBulk('products.bulkPrices', items, (check, item) => {
    checkPriceFields(check, item);
    if (!PRICE_FIELDS.some((key) => item[key] !== undefined)) {
      check.add('price', `needs at least one of ${PRICE_FIELDS.join(', ')}`);
    }
  });
}

export function checkOrderCreate(input: unknown): void {
  const check = new InputCheck();
  const order = asInput(input);
  if (order.customer_id === undefined && order.customer === undefined) {
    check.add('customer_id', 'customer_id or customer is required');
  }
  check.id(order, 'customer_id');
  if (order.customer !== undefined) {
    const customer = requireObject(check, order.customer, 'customer');
    if (customer) {
      check.string(customer, 'name', { required: true }, 'customer.name');
      for (const key of ['email', 'phone', 'company_name', 'cui', 'reg_com']) {
        check.string(customer, key, {}, `customer.${key}`);
      }
    }
  }
  if (!Array.isArray(order.items)) check.add('items', 'is required (a list with at least one line)');
  else {
    if (order.items.length === 0) check.add('items', 'must hold at least one line');
    order.items.forEach((raw: unknown, index: number) => {
      const at = `items.${index}`;
      const line = requireObject(check, raw, at);
      if (!line) return;
      if (line.product_id === undefined && line.sku === undefined) {
        check.add(`${at}.product_id`, 'product_id or sku is required');
      }
      check.id(line, 'product_id', false, `${at}.product_id`);
      check.string(line, 'sku', { nonEmpty: true }, `${at}.sku`);
      check.id(line, 'variant_id', false, `${at}.variant_id`);
      check.number(
        line,
        'quantity',
        { required: true, integer: true, min: LIMITS.orderLineQuantityMin },
        `${at}.quantity`,
      );
      check.number(line, 'unit_price', { min: 0 }, `${at}.unit_price`);
      check.number(line, 'tax_rate', { min: LIMITS.taxRateMin, max: LIMITS.taxRateMax }, `${at}.tax_rate`);
    });
  }
  check.oneOf(order, 'status', ORDER_STATUSES);
  check.oneOf(order, 'payment_status', PAYMENT_STATUSES);
  if (
    order.currency !== undefined &&
    (typeof order.currency !== 'string' || !/^[A-Za-z]{3}$/.test(order.currency))
  ) {
    check.add('currency', 'must be a 3-letter ISO code');
  }
  check.number(order, 'shipping_total', { min: 0 });
  check.number(order, 'discount_total', { min: 0 });
  check.string(order, 'source_order_id');
  check.throwIfAny('orders.create');
}

export function checkOrderUpdate(input: unknown): void {
  const check = new InputCheck();
  const order = asInput(input);
  check.oneOf(order, 'status', ORDER_STATUSES);
  check.oneOf(order, 'payment_status', PAYMENT_STATUSES);
  check.string(order, 'payment_method');
  check.string(order, 'shipping_method');
  check.string(order, 'note', { max: LIMITS.orderStatusNoteMax });
  check.string(order, 'notes');
  check.stringList(order, 'labels', LIMITS.orderLabelMax);
  check.atLeastOne(order, [
    'status',
    'payment_status',
    'payment_method',
    'shipping_method',
    'note',
    'notes',
    'labels',
  ]);
  check.throwIfAny('orders.update');
}

export function checkAwb(input: unknown): void {
  const check = new InputCheck();
  const awb = asInput(input);
  check.oneOf(awb, 'courier', COURIERS);
  check.number(awb, 'weight', { min: 0 });
  check.number(awb, 'parcels', { integer: true, min: LIMITS.awbParcelsMin });
  check.number(awb, 'cod_amount', { min: 0 });
  check.throwIfAny('orders.createAwb');
}

export function checkCustomerUpdate(input: unknown): void {
  const check = new InputCheck();
  const customer = asInput(input);
  check.string(customer, 'name', { nonEmpty: true });
  for (const key of ['email', 'phone', 'company_name', 'cui', 'reg_com']) check.string(customer, key);
  check.string(customer, 'notes', { max: LIMITS.customerNotesMax });
  check.atLeastOne(customer, ['name', 'email', 'phone', 'company_name', 'cui', 'reg_com', 'notes']);
  check.throwIfAny('customers.update');
}

export function checkTag(input: unknown, creating: boolean): void {
  const check = new InputCheck();
  const tag = asInput(input);
  check.string(tag, 'name', { required: creating, nonEmpty: true, max: LIMITS.tagNameMax });
  check.string(tag, 'color', { max: LIMITS.tagColorMax });
  if (!creating) check.atLeastOne(tag, ['name', 'color']);
  check.throwIfAny(creating ? 'tags.create' : 'tags.update');
}

export function checkProductIds(operation: string, productIds: unknown): void {
  const check = new InputCheck();
  if (!Array.isArray(productIds) || productIds.length === 0) {
    check.add('product_ids', 'must be a non-empty list of product ids');
  } else {
    productIds.forEach((value: unknown, index) => check.id({ value }, 'value', true, `product_ids.${index}`));
  }
  check.throwIfAny(operation);
}
