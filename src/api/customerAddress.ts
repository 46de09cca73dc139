import type { OrderAddress } from '../domain/orders.js';

type Fields = Record<string, unknown>;

/** Names platforms give an address's parts (first found wins). */
const PARTS: Record<keyof OrderAddress, readonly string[]> = {
  street: ['street', 'address1', 'address_line_1', 'line1', 'street_address', 'address'],
  city: ['city', 'town', 'locality'],
  postalCode: ['postal_code', 'zip', 'zip_code', 'postcode'],
  county: ['county', 'state', 'region', 'province'],
  country: ['country', 'country_code'],
};

/** Where an order's address may sit, most specific for delivery first. */
const PLACES = ['shipping_address', 'address', 'billing_address'] as const;

const text = (value: unknown): string | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

const asFields = (value: unknown): Fields | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : null;

/** PARTS as entries, made once: an order's address is read for every import. */
const PART_NAMES = Object.entries(PARTS) as [keyof OrderAddress, readonly string[]][];

/** A part under one name: text, or a nested object's code or name (a country as { code, name }). */
function partText(raw: unknown): string | null {
  const found = text(raw);
  if (found !== null) return found;
  const nested = asFields(raw);
  return nested ? (text(nested.code) ?? text(nested.name)) : null;
}

/**
 * The address parts of one object (an address as a bare string is its street); null when none.
 * `skip`: a name not read as a part (the customer's `address`, when its top-level fields are read).
 */
function readAddress(value: unknown, skip?: string): OrderAddress | null {
  const street = text(value);
  if (street) return { street, city: null, postalCode: null, county: null, country: null };
  const fields = asFields(value);
  if (!fields) return null;
  const address = {} as OrderAddress;
  let any = false;
  for (const [part, names] of PART_NAMES) {
    let found: string | null = null;
    for (const name of names) {
      if (name === skip) continue;
      found = partText(fields[name]);
      if (found) break;
    }
    address[part] = found;
    if (found !== null) any = true;
  }
  return any ? address : null;
}

/**
 * The customer's address of an order record, whichever plausible shape the platform chose (the
 * spec shows none): under the customer's `shipping_address`, `address` or `billing_address`
 * (our sandbox: `customer.address`), the same keys on the order itself, or street, city and
 * postal code at the customer's top level. Null when the order carries no address.
 */
export function customerAddressOf(order: Fields): OrderAddress | null {
  const customer = asFields(order.customer);
  for (const owner of [customer, order]) {
    if (!owner) continue;
    for (const place of PLACES) {
      const address = readAddress(owner[place]);
      if (address) return address;
    }
  }
  if (!customer) return null;
  // Parts at the customer's top level (never the order's: its `number` or `status` are no address).
  const top = readAddress(customer, 'address');
  return top && (top.street || top.city || top.postalCode) ? top : null;
}
