import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../../src/config.js';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import { silentLogger } from '../../../src/logger.js';
import { describeOrderExchangeContract } from '../../contract/orderExchangeContract.js';

describeOrderExchangeContract('file adapter', async ({ events, outgoing }) => {
  const dir = await mkdtemp(join(tmpdir(), 'orders-contract-'));
  const csv = (v: string | undefined) => (v === undefined ? '' : `"${v.replace(/"/g, '""')}"`);
  await writeFile(
    join(dir, 'events.csv'),
    [
      'order_id;erp_ref;event;courier;weight;parcels;note;labels',
      ...events.map((e) =>
        [
          e.orderId?.toString(),
          e.erpRef,
          e.event,
          e.courier,
          e.weight,
          e.parcels,
          e.note,
          e.labels?.join('|'),
        ]
          .map(csv)
          .join(';'),
      ),
    ].join('\n'),
  );
  const inbox = join(dir, 'inbox', 'orders');
  await mkdir(inbox, { recursive: true });
  for (const [i, order] of outgoing.entries()) {
    await writeFile(
      join(inbox, `${String(i).padStart(3, '0')}.json`),
      JSON.stringify({
        source_order_id: order.sourceOrderId,
        customer: { name: `Customer ${i}`, email: order.customerEmail },
        items: order.items,
      }),
    );
  }
  const config = parseConfig({
    api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
    erp: { type: 'file', path: dir },
  });
  if (config.erp.type !== 'file') throw new Error('file config expected');
  return {
    adapter: new FileErpAdapter(config.erp, silentLogger()),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
