import { silentLogger } from '../../../src/logger.js';
import { openErpAdapter } from '../../../src/erp/createErpAdapter.js';
import { describeErpAdapterContract } from '../../contract/erpAdapterContract.js';
import { fileConfig, writeDropFolder, type DropFormat } from './writeDropFolder.js';

for (const format of ['csv', 'json', 'ndjson', 'xml'] as DropFormat[]) {
  describeErpAdapterContract(`file adapter, ${format}`, async (dataset) => {
    const drop = writeDropFolder(dataset, format);
    return {
      adapter: await openErpAdapter(fileConfig(drop.dir), silentLogger()),
      locate: drop.locate,
      cleanup: drop.cleanup,
    };
  });
}
