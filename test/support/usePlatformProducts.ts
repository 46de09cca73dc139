import { afterAll, beforeAll, expect } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import type { ApiProduct } from '../../src/api/schemas.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { platformItems, type PlatformItem } from '../../src/sync/catalog/catalog.js';

export interface PlatformProducts {
  /** A client of the file's sandbox (demo seed), without retries. */
  readonly client: ApiClient;
  /** A simple product of the seed, and a variable one with a variant SKU. */
  readonly simple: ApiProduct;
  readonly variable: ApiProduct;
  readonly variantSku: string;
  /** One item (`SKU` or `SKU/VARIANT`) as the platform holds it now, in the fingerprints' terms. */
  itemOf(product: ApiProduct, key: string): Promise<PlatformItem>;
}

/** One sandbox for the test file, and products of it to push to (started in beforeAll, closed in afterAll). */
export function usePlatformProducts(): PlatformProducts {
  let sandbox: Sandbox | undefined;
  let state: { client: ApiClient; simple: ApiProduct; variable: ApiProduct } | undefined;
  const current = () => {
    if (!state) throw new Error('usePlatformProducts: used before beforeAll ran');
    return state;
  };
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'demo' });
    const client = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
    const products = (await client.products.list({ per_page: 100 })).data;
    const simple = products.find((p) => p.type !== 'variable');
    const variable = products.find((p) => p.type === 'variable' && (p.variants ?? []).some((v) => v.sku));
    expect(simple).toBeDefined();
    expect(variable).toBeDefined();
    state = { client, simple: simple!, variable: variable! };
  });
  afterAll(async () => {
    await state?.client.close();
    await sandbox?.close();
  });
  return {
    get client() {
      return current().client;
    },
    get simple() {
      return current().simple;
    },
    get variable() {
      return current().variable;
    },
    get variantSku() {
      return current().variable.variants!.find((v) => v.sku)!.sku!;
    },
    itemOf: async (product, key) =>
      platformItems(await current().client.products.get(product.id)).find((item) => item.key === key)!,
  };
}
