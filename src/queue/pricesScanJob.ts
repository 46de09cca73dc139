import { defineScanJob } from './scanJob.js';

/** `prices-scan` on the runs queue: reads the ERP's prices and fans out one push job per bulk request. */
export const pricesScanJob = defineScanJob('prices-scan', 'prices');
