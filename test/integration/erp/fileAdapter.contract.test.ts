import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openErpAdapter } from '../../../src/erp/createErpAdapter.js';
import { silentLogger } from '../../../src/logger.js';
import {
  describeErpAdapterContract,
  eventRow,
  outgoingOrderDocument,
  type ContractKind,
  type ContractSeed,
  type ContractSource,
} from '../../contract/erpAdapterContract.js';
import { fileConfig, writeDropFile, type DropFormat } from '../../support/writeDropFolder.js';

/** A drop folder holding the seed: record files in `format`, events as CSV (or JSON), inbox order files. */
async function dropFolderSource(format: DropFormat, archive: boolean): Promise<ContractSource> {
  const dir = await mkdtemp(join(tmpdir(), `erp-contract-${format}-`));
  const lines = new Map<ContractKind, number[]>();
  const eventsAs = format === 'csv' ? 'csv' : 'json';
  return {
    async seed(data: Partial<ContractSeed>) {
      for (const kind of ['stock', 'prices', 'products'] as const) {
        const rows = data[kind];
        if (rows) lines.set(kind, writeDropFile(dir, kind, format, rows));
      }
      if (data.events) {
        const rows = data.events.map(eventRow);
        const columns = ['order_id', 'erp_ref', 'event', 'courier', 'weight', 'parcels', 'note', 'labels'];
        const csv = (v: unknown) => (v === undefined ? '' : `"${String(v).replace(/"/g, '""')}"`);
        const text =
          eventsAs === 'csv'
            ? [columns.join(';'), ...rows.map((r) => columns.map((c) => csv(r[c])).join(';'))].join('\n')
            : JSON.stringify(rows);
        await writeFile(join(dir, `events.${eventsAs}`), text);
      }
      if (data.outgoing) {
        const inbox = join(dir, 'inbox', 'orders');
        await rm(inbox, { recursive: true, force: true });
        await mkdir(inbox, { recursive: true });
        for (const [i, order] of data.outgoing.entries()) {
          await writeFile(
            join(inbox, `${String(i).padStart(3, '0')}.json`),
            JSON.stringify(outgoingOrderDocument(order, i)),
          );
        }
      }
    },
    open: () => openErpAdapter(fileConfig(dir, { archive }), silentLogger()),
    locate: (kind, index) => ({ file: `${kind}.${format}`, line: lines.get(kind)![index]! }),
    async toldPlatformOrder(sourceOrderId) {
      const path = join(dir, 'outbox', 'results', `created-${sourceOrderId}.json`);
      const text = await readFile(path, 'utf8').catch(() => null);
      return text === null ? null : (JSON.parse(text) as { platform_order_id: number }).platform_order_id;
    },
    // The outbox file, still where erp-sync wrote it (the ERP has not moved it to done/).
    expectedLocation: (id) => ({
      place: join(dir, 'outbox', 'orders', `${id}.json`),
      facts: { bytes: expect.any(Number) as number, movedTo: null },
    }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

for (const format of ['csv', 'json', 'ndjson', 'xml'] as DropFormat[]) {
  describeErpAdapterContract(`file adapter, ${format}`, () => dropFolderSource(format, false));
  describeErpAdapterContract(`file adapter, ${format}, archiving (delta reads)`, () =>
    dropFolderSource(format, true),
  );
}
