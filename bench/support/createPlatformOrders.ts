import { createApiClient } from '../../src/api/createApiClient.js';
import type { Sandbox } from '../../src/sandbox/index.js';

/**
 * Places `count` orders on the sandbox through the API (16 at a time) over a few seeded products
 * whose stock is raised first, so none is refused; returns the seconds it took.
 */
export async function createPlatformOrders(sandbox: Sandbox, count: number): Promise<number> {
  const client = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 2 });
  const products = await client.products.list({ per_page: 5 });
  const skus = products.data.map((p) => p.sku!).filter(Boolean);
  for (const product of products.data)
    await client.products.updateStock(product.id, { quantity: 10_000_000 });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      await client.orders.create({
        customer: { name: `Bench Client ${n % 500}`, email: `bench${n % 500}@example.ro` },
        items: [{ sku: skus[n % skus.length]!, quantity: 1 + (n % 3) }],
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await client.close();
  return (performance.now() - started) / 1000;
}
