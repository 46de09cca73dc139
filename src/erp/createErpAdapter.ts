import type { ErpConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { ErpAdapter } from './ErpAdapter.js';
import { FileErpAdapter } from './file/FileErpAdapter.js';
import { SqlErpAdapter } from './sql/SqlErpAdapter.js';

/** The adapter the configuration names (`erp.type`). */
export function createErpAdapter(config: ErpConfig, logger: Logger): ErpAdapter {
  switch (config.type) {
    case 'file':
      return new FileErpAdapter(config, logger.child({ module: 'erp-file' }));
    case 'sql':
      return new SqlErpAdapter(config, logger.child({ module: 'erp-sql' }));
  }
}
