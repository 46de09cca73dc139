import { defineScanJob } from './scanJob.js';

/** `stock-scan` on the runs queue: reads the ERP's stock and fans out one push job per bulk request. */
export const stockScanJob = defineScanJob('stock-scan', 'stock');
