import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/createApiClient.js';
import type { OrderStatus } from '../../src/domain/limits.js';

/** Ids of the platform orders in the given statuses, read through the API. */
export async function platformOrderIds(api: ApiClient, statuses: readonly OrderStatus[]): Promise<number[]> {
  const ids: number[] = [];
  for await (const order of api.orders.iterate()) if (statuses.includes(order.status)) ids.push(order.id);
  return ids.sort((a, b) => a - b);
}

/** Order ids in the outbox folder (file names `<id>.json`); temporary files are counted apart. */
export async function outboxIds(erpDir: string): Promise<{ ids: number[]; temp: string[] }> {
  let names: string[] = [];
  try {
    names = await readdir(join(erpDir, 'outbox', 'orders'));
  } catch {
    return { ids: [], temp: [] };
  }
  const ids = names.filter((n) => /^\d+\.(json|xml)$/.test(n)).map((n) => Number.parseInt(n, 10));
  return { ids: ids.sort((a, b) => a - b), temp: names.filter((n) => n.startsWith('.')) };
}

export async function createPlatformOrder(
  api: ApiClient,
  sku: string,
  quantity = 1,
  extra: Record<string, unknown> = {},
) {
  return api.orders.create({
    customer: { name: 'Test Client', email: 'test.client@example.ro' },
    items: [{ sku, quantity }],
    ...extra,
  });
}

/** A SKU of an active simple product with stock, for creating orders in tests. */
export async function sellableSku(api: ApiClient, minStock = 1000): Promise<string> {
  for await (const product of api.products.iterate({ status: 'active' })) {
    if (product.type !== 'variable' && product.sku && product.track_stock !== false) {
      await api.products.updateStock(product.id, { quantity: minStock });
      return product.sku;
    }
  }
  throw new Error('no sellable product in the sandbox seed');
}

/** An ERP-origin order dropped into `DIR/inbox/orders/<file>` (the folder created if missing). */
export async function writeInboxOrder(
  erpDir: string,
  file: string,
  order: Record<string, unknown>,
): Promise<string> {
  const inbox = join(erpDir, 'inbox', 'orders');
  await mkdir(inbox, { recursive: true });
  await writeFile(join(inbox, file), JSON.stringify(order));
  return inbox;
}
