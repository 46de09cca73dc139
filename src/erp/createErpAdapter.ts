import type { Logger } from '../logger.js';
import type { ErpAdapter } from './ErpAdapter.js';
import type { ErpConfig } from './ErpConfig.js';

/**
 * The adapter the configuration names (`erp.type`), loaded only now: a command that needs no
 * ERP (status) never loads an adapter or its drivers. The caller opens it (`open()`) and closes it.
 */
export async function createErpAdapter(config: ErpConfig, logger: Logger): Promise<ErpAdapter> {
  switch (config.type) {
    case 'file': {
      const { FileErpAdapter } = await import('./file/FileErpAdapter.js');
      return new FileErpAdapter(config, logger.child({ module: 'erp-file' }));
    }
    case 'sql': {
      const { SqlErpAdapter } = await import('./sql/SqlErpAdapter.js');
      return new SqlErpAdapter(config, logger.child({ module: 'erp-sql' }));
    }
    case 'tryton': {
      const { TrytonErpAdapter } = await import('./tryton/TrytonErpAdapter.js');
      return new TrytonErpAdapter(config, logger.child({ module: 'erp-tryton' }));
    }
  }
}

/** createErpAdapter, then open(); a failed open closes what it opened. */
export async function openErpAdapter(config: ErpConfig, logger: Logger): Promise<ErpAdapter> {
  const adapter = await createErpAdapter(config, logger);
  try {
    await adapter.open();
  } catch (error) {
    await adapter.close().catch(() => undefined);
    throw error;
  }
  return adapter;
}
