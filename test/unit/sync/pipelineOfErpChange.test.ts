import { describe, expect, it } from 'vitest';
import { ERP_CHANGES } from '../../../src/erp/ErpWatch.js';
import { isPipelineName } from '../../../src/domain/pipelineNames.js';
import { pipelineOfErpChange } from '../../../src/sync/pipelineOfErpChange.js';

describe('pipelineOfErpChange', () => {
  it('runs the pipeline that reads what changed', () => {
    expect(ERP_CHANGES.map((change) => [change, pipelineOfErpChange(change)])).toEqual([
      ['stock', 'stock'],
      ['prices', 'prices'],
      ['products', 'products'],
      ['orderEvents', 'feedback'],
      ['outgoingOrders', 'erp-orders'],
    ]);
  });

  it('names only real pipelines', () => {
    for (const change of ERP_CHANGES) {
      const pipeline = pipelineOfErpChange(change);
      if (pipeline !== null) expect(isPipelineName(pipeline)).toBe(true);
    }
  });
});
