import type { OrderChange, PlatformOrder } from '../../domain/orders.js';
import type { Logger } from '../../logger.js';
import type { ImportResult } from '../ErpAdapter.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import { OrderRefusedError } from '../OrderRefusedError.js';
import type { TrytonClient } from './TrytonClient.js';
import { CalendarDate, TrytonDecimal } from './trytonValues.js';

export interface OrderSettings {
  confirm: boolean;
  warehouseId: number;
}

interface Sale {
  id: number;
  number: string | null;
  state: string;
  comment: string | null;
  create_date: Date | null;
}

interface Product {
  id: number;
  code: string;
  salable: boolean;
  sale_uom: number | null;
  'template.'?: { account_category: number | null };
}

interface Tax {
  id: number;
  rate: unknown;
  type: string;
}

const SALE_FIELDS = ['number', 'state', 'comment', 'create_date'];
/** States from which a sale can still be cancelled, with the steps to get there. */
const CANCEL_STEPS: Record<string, string[]> = {
  draft: ['cancel'],
  quotation: ['cancel'],
  confirmed: ['draft', 'cancel'],
};

/**
 * Platform orders as Tryton sales. The sale's `reference` is the platform order id: an import
 * first looks for it, so a repeated import (after a crash anywhere between create, quote and
 * confirm) finishes the sale it finds instead of creating a second one.
 */
export class TrytonOrders {
  constructor(
    private readonly rpc: TrytonClient,
    private readonly settings: OrderSettings,
    private readonly logger: Logger,
  ) {}

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    const found = await this.findSale(order.id);
    if (found) {
      const sale = await this.#advance(found);
      return { erpRef: erpRefOf(sale), alreadyImported: true };
    }
    const lines = await this.#lines(order);
    const currency = await this.#currency(order);
    const party = await this.#party(order);
    const [saleId] = await this.rpc.model<number[]>('sale.sale', 'create', [
      [
        {
          party: party.party,
          invoice_address: party.address,
          shipment_address: party.address,
          warehouse: this.settings.warehouseId,
          currency,
          reference: String(order.id),
          description: `Platform order ${order.number}`.slice(0, 200),
          sale_date: CalendarDate.fromDate(new Date(order.createdAt || Date.now())),
          comment: orderComment(order),
          lines: [['create', lines]],
        },
      ],
    ]);
    this.logger.info({ orderId: order.id, saleId }, 'sale created in Tryton');
    const sale = await this.#advance(await this.#read(saleId!));
    return { erpRef: erpRefOf(sale), alreadyImported: false };
  }

  /**
   * A cancellation cancels the sale while Tryton allows it (draft, quotation, confirmed). Past
   * that (processing, done) the sale gets a note and the change is refused, saying so.
   */
  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    if (change.status !== 'cancelled') return;
    const sale = await this.findSale(order.id);
    if (!sale || sale.state === 'cancelled') return;
    const steps = CANCEL_STEPS[sale.state];
    if (steps) {
      for (const step of steps) await this.rpc.model('sale.sale', step, [[sale.id]]);
      this.logger.info({ orderId: order.id, saleId: sale.id }, 'sale cancelled in Tryton');
      return;
    }
    const note = `erp-sync: platform order ${order.number} (${order.id}) was cancelled on the platform; the sale is ${sale.state} and was not cancelled.`;
    if (!(sale.comment ?? '').includes(note)) {
      const comment = sale.comment ? `${sale.comment}\n${note}` : note;
      await this.rpc.model('sale.sale', 'write', [[sale.id], { comment }]);
    }
    throw new OrderRefusedError(
      `Tryton sale ${erpRefOf(sale)} is ${sale.state}: not cancelled there (a note was added to the sale)`,
      { orderId: order.id, saleId: sale.id, state: sale.state },
    );
  }

  /** Read only: the sale an earlier import created, found by its reference (the platform order id). */
  async locateOrder(orderId: number): Promise<ErpOrderLocation | null> {
    const sale = await this.findSale(orderId);
    if (!sale) return null;
    return {
      erpRef: erpRefOf(sale),
      place: `sale.sale ${sale.id}`,
      at: sale.create_date instanceof Date ? sale.create_date.toISOString() : null,
      facts: { saleId: sale.id, number: sale.number, reference: String(orderId), state: sale.state },
    };
  }

  async findSale(orderId: number): Promise<Sale | null> {
    const sales = await this.rpc.model<Sale[]>('sale.sale', 'search_read', [
      [['reference', '=', String(orderId)]],
      0,
      1,
      [['id', 'ASC']],
      SALE_FIELDS,
    ]);
    return sales[0] ?? null;
  }

  async #read(saleId: number): Promise<Sale> {
    const [sale] = await this.rpc.model<Sale[]>('sale.sale', 'read', [[saleId], SALE_FIELDS]);
    if (!sale) throw new OrderRefusedError(`Tryton sale ${saleId} vanished right after it was created`);
    return sale;
  }

  /** Quotes a draft and confirms a quotation (when configured); each step is one call. */
  async #advance(sale: Sale): Promise<Sale> {
    let current = sale;
    if (current.state === 'draft') {
      await this.rpc.model('sale.sale', 'quote', [[current.id]]);
      current = await this.#read(current.id);
    }
    if (this.settings.confirm && current.state === 'quotation') {
      await this.rpc.model('sale.sale', 'confirm', [[current.id]]);
      current = await this.#read(current.id);
    }
    return current;
  }

  async #lines(order: PlatformOrder): Promise<Record<string, unknown>[]> {
    const skus = order.items.map((line) => line.sku?.trim() ?? '');
    const products = await this.rpc.model<Product[]>('product.product', 'search_read', [
      [['code', 'in', [...new Set(skus.filter(Boolean))]]],
      0,
      null,
      null,
      ['code', 'salable', 'sale_uom', 'template.account_category'],
    ]);
    const bySku = new Map(products.map((product) => [product.code, product]));
    const unknown = skus.filter((sku) => !bySku.get(sku)?.salable).map((sku) => sku || '(no SKU)');
    if (unknown.length > 0) {
      throw new OrderRefusedError(`unknown SKU in the ERP: ${[...new Set(unknown)].join(', ')}`, {
        orderId: order.id,
        skus: unknown,
      });
    }
    const taxes = await this.#taxes();
    return order.items.map((line, index) => {
      const product = bySku.get(skus[index]!)!;
      const tax = taxes.find((t) => line.taxRate !== null && Math.abs(t.rate * 100 - line.taxRate) < 1e-6);
      if (line.taxRate !== null && !tax) {
        throw new OrderRefusedError(`no Tryton tax with the rate ${line.taxRate}% (SKU ${product.code})`, {
          orderId: order.id,
        });
      }
      const rate = tax?.rate ?? 0;
      // Platform prices include VAT; Tryton's unit price is net.
      const net = line.unitPrice / (1 + rate);
      const values: Record<string, unknown> = {
        product: product.id,
        quantity: line.quantity,
        unit: product.sale_uom,
        unit_price: TrytonDecimal.of(net, 4),
        taxes: [['add', tax ? [tax.id] : []]],
      };
      if (line.name) values.description = line.name;
      return values;
    });
  }

  /** The Tryton currency with the order's code; an order in a currency Tryton lacks is parked. */
  async #currency(order: PlatformOrder): Promise<number> {
    const code = order.currency.trim().toUpperCase();
    const found = await this.rpc.model<{ id: number }[]>('currency.currency', 'search_read', [
      [['code', '=', code]],
      0,
      1,
      null,
      ['id'],
    ]);
    if (!found[0]) {
      throw new OrderRefusedError(`no currency ${code} in Tryton`, { orderId: order.id, currency: code });
    }
    return found[0].id;
  }

  async #taxes(): Promise<{ id: number; rate: number }[]> {
    const taxes = await this.rpc.model<Tax[]>('account.tax', 'search_read', [
      [
        ['type', '=', 'percentage'],
        ['parent', '=', null],
      ],
      0,
      null,
      [['id', 'ASC']],
      ['rate', 'type'],
    ]);
    return taxes.flatMap((tax) =>
      tax.rate instanceof TrytonDecimal ? [{ id: tax.id, rate: tax.rate.toNumber() }] : [],
    );
  }

  /** The customer by e-mail, else a new party with the order's address and contacts. */
  async #party(order: PlatformOrder): Promise<{ party: number; address: number }> {
    const email = order.customer.email?.trim().toLowerCase() || null;
    if (email) {
      const mechanisms = await this.rpc.model<{ id: number; party: number }[]>(
        'party.contact_mechanism',
        'search_read',
        [
          [
            ['type', '=', 'email'],
            ['value', 'ilike', email],
          ],
          0,
          1,
          [['id', 'ASC']],
          ['party'],
        ],
      );
      const party = mechanisms[0]?.party;
      if (party) return { party, address: await this.#address(party, order) };
    }
    const contacts: Record<string, unknown>[] = [];
    if (email) contacts.push({ type: 'email', value: email });
    if (order.customer.phone) contacts.push({ type: 'phone', value: order.customer.phone });
    const name =
      order.customer.companyName?.trim() || order.customer.name.trim() || `Platform customer ${order.id}`;
    const address = await this.#addressValues(order);
    const [party] = await this.rpc.model<number[]>('party.party', 'create', [
      [{ name, addresses: [['create', [address]]], contact_mechanisms: [['create', contacts]] }],
    ]);
    this.logger.info({ orderId: order.id, party }, 'customer created in Tryton');
    return { party: party!, address: await this.#address(party!, order) };
  }

  async #address(party: number, order: PlatformOrder): Promise<number> {
    const addresses = await this.rpc.model<{ id: number }[]>('party.address', 'search_read', [
      [['party', '=', party]],
      0,
      1,
      [
        ['sequence', 'ASC'],
        ['id', 'ASC'],
      ],
      ['id'],
    ]);
    if (addresses[0]) return addresses[0].id;
    const [address] = await this.rpc.model<number[]>('party.address', 'create', [
      [{ party, ...(await this.#addressValues(order)) }],
    ]);
    return address!;
  }

  /** The party address of the order's customer; its country when Tryton knows the ISO code. */
  async #addressValues(order: PlatformOrder): Promise<Record<string, unknown>> {
    const values = addressOf(order);
    const code = order.customer.address?.country?.toUpperCase();
    if (code && /^[A-Z]{2}$/.test(code)) {
      const [country] = await this.rpc.model<{ id: number }[]>('country.country', 'search_read', [
        [['code', '=', code]],
        0,
        1,
        null,
        ['id'],
      ]);
      if (country) values.country = country.id;
    }
    return values;
  }
}

/** The party address of the order's customer (normalised by the API mapper, whatever its shape). */
function addressOf(order: PlatformOrder): Record<string, unknown> {
  const { street, city, postalCode } = order.customer.address ?? {};
  const address: Record<string, unknown> = {};
  if (street) address.street = street;
  if (city) address.city = city;
  if (postalCode) address.postal_code = postalCode;
  return address;
}

function orderComment(order: PlatformOrder): string {
  const parts = [`Platform order ${order.number} (id ${order.id}), total ${order.total} ${order.currency}`];
  if (order.shippingTotal) parts.push(`shipping ${order.shippingTotal} ${order.currency}`);
  if (order.discountTotal) parts.push(`discount ${order.discountTotal} ${order.currency}`);
  return parts.join(', ');
}

/** The sale's number once quoted; a draft has none yet. */
export function erpRefOf(sale: Sale): string {
  return sale.number ?? `sale#${sale.id}`;
}
