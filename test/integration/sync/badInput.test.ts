import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPrices } from '../../../src/sync/push/prices.js';
import { runStock } from '../../../src/sync/push/stock.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('bad input files through the pipelines', () => {
  it('pushes the good rows before and after a stray quote and records the broken line as one reject', async () => {
    harness = await createHarness({ extraProducts: 5 });
    const lines = [
      'sku,quantity',
      `${bulkSku(1)},11`,
      `${bulkSku(2)},12`,
      `${bulkSku(3)} 12" pipe,8`,
      `${bulkSku(4)},14`,
      `${bulkSku(5)},15`,
    ];
    writeFileSync(join(harness.dir, 'stock.csv'), `${lines.join('\n')}\n`);
    const ctx = await harness.context();
    const summary = await runStock(ctx, RUN);
    expect(summary).toMatchObject({ applied: 4, rejected: 1 });

    const platform = await harness.platform(ctx);
    expect([1, 2, 4, 5].map((n) => platform.get(bulkSku(n))?.stock)).toEqual([11, 12, 14, 15]);
    expect(platform.get(bulkSku(3))?.stock).toBe(0);
    const rejects = ctx.store.rejects.list({ pipeline: 'stock' });
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({
      key: 'stock.csv:4',
      source: { file: 'stock.csv', line: 4 },
      reason: expect.stringMatching(/^malformed CSV: a quote inside an unquoted cell/),
    });
  });

  it('sends no oversized SKU, no inexact integer and no sale price above the price', async () => {
    harness = await createHarness({ extraProducts: 3 });
    writeFileSync(
      join(harness.dir, 'stock.csv'),
      `sku,quantity\n${'S'.repeat(300)},1\n${bulkSku(1)},9007199254740993\n${bulkSku(2)},7\n`,
    );
    writeFileSync(
      join(harness.dir, 'prices.csv'),
      `sku,price,sale_price\n${bulkSku(1)},100,150\n${bulkSku(2)},100,90\n`,
    );
    const ctx = await harness.context();
    expect(await runStock(ctx, RUN)).toMatchObject({ applied: 1, rejected: 2 });
    expect(await runPrices(await harness.context(), RUN)).toMatchObject({ applied: 1, rejected: 1 });
    const sent = harness
      .writes()
      .flatMap((entry) => (entry.body as { items: { sku: string }[] }).items.map((item) => item.sku));
    expect(sent).toEqual([bulkSku(2), bulkSku(2)]);
    const rejects = ctx.store.rejects.list({});
    expect(rejects.map((r) => `${r.pipeline} ${r.key}: ${r.reason}`).sort()).toEqual([
      `prices ${bulkSku(1)}: sale_price 150 is above price 100`,
      `stock ${bulkSku(1)}: quantity is too large to be exact (beyond 2^53), got 9007199254740992`,
      `stock ${'S'.repeat(60)}… (300 characters): sku is longer than 100 characters (300)`,
    ]);
  });
});
