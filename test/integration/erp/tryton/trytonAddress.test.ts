import { describe, expect, it } from 'vitest';
import { importPlatformOrder } from '../../../../src/sync/orders/orderImport.js';
import { TRYTON_SEED } from '../../../support/trytonServer.js';
import { type TrytonWorld, useTrytonWorld } from '../../../support/trytonWorld.js';

/*
 * A new Tryton party gets the customer's address whatever shape the platform sends it in: our
 * own sandbox serves it under `customer.address` (street, city, postal_code, county, country).
 */

let world: TrytonWorld;
useTrytonWorld((started) => (world = started), { seed: 'demo' });

interface Address {
  street: string | null;
  city: string | null;
  postal_code: string | null;
}

describe('Tryton: the customer of a new order', { timeout: 120_000 }, () => {
  it('creates the party with the address the sandbox serves under customer.address', async () => {
    const customers = (await world.api.customers.list({ per_page: 100 })).data as {
      id: number;
      email?: string | null;
      address?: { street?: string | null; city?: string | null; postal_code?: string | null } | null;
    }[];
    const customer = customers.find(
      (c) => c.address?.street && c.address.city && c.address.postal_code && c.email,
    );
    expect(customer, 'a demo customer with an address').toBeDefined();
    const order = await world.api.orders.create({
      customer_id: customer!.id,
      items: [{ sku: TRYTON_SEED.skus[0]!, quantity: 1 }],
    });
    const listed = await world.api.orders.get(order.id);
    expect(listed.customer).toMatchObject({ address: { street: customer!.address!.street } });

    const ctx = await world.context();
    expect(await importPlatformOrder(ctx, order.id)).toBe('imported');

    const [sale] = await world.rpc.model<{ party: number; shipment_address: number }[]>(
      'sale.sale',
      'search_read',
      [[['reference', '=', String(order.id)]], 0, 1, null, ['party', 'shipment_address']],
    );
    expect(sale).toBeDefined();
    const addresses = await world.rpc.model<Address[]>('party.address', 'read', [
      [sale!.shipment_address],
      ['street', 'city', 'postal_code'],
    ]);
    expect(addresses[0]).toMatchObject({
      street: customer!.address!.street,
      city: customer!.address!.city,
      postal_code: customer!.address!.postal_code,
    });
  });
});
