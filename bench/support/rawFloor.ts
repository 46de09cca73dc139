import { createApiClient } from '../../src/api/createApiClient.js';
import type { BulkStockItem } from '../../src/api/inputs.js';
import type { Sandbox } from '../../src/sandbox/index.js';

/**
 * The floor of any stock sync: the bulk bodies built beforehand (`batch` items each, absolute
 * quantities), sent by one keep-alive client with `concurrency` requests in flight. Returns the
 * seconds from the first request to the last answer.
 */
export async function sendRawFloor(
  sandbox: Sandbox,
  skus: string[],
  quantity: (index: number) => number,
  options: { batch: number; concurrency: number },
): Promise<number> {
  const bodies: BulkStockItem[][] = [];
  for (let start = 0; start < skus.length; start += options.batch)
    bodies.push(
      skus.slice(start, start + options.batch).map((sku, i) => ({ sku, quantity: quantity(start + i) })),
    );
  const client = createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.keys.primary,
    maxSockets: options.concurrency,
  });
  try {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < bodies.length) await client.products.bulkStock(bodies[next++]!);
      }),
    );
    return (performance.now() - started) / 1000;
  } finally {
    await client.close();
  }
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
