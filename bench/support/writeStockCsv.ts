import { createWriteStream, renameSync } from 'node:fs';
import { once } from 'node:events';

/** `BULK-000001`...: the sandbox's extra products (`extraProducts`). */
export const bulkSku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/** A stock.csv of `rows` bulk SKUs, streamed to a temporary name and renamed (as an ERP export should). */
export async function writeStockCsv(
  path: string,
  quantity: (n: number) => number,
  rows: number,
): Promise<void> {
  const out = createWriteStream(`${path}.tmp`);
  out.write('sku,quantity\n');
  for (let n = 1; n <= rows; n++) {
    if (!out.write(`${bulkSku(n)},${quantity(n)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(`${path}.tmp`, path);
}
