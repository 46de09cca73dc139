import { defineRunJob } from './runJob.js';

/** `stock-scan` on the runs queue: one stock pipeline run, de-duplicated per pipeline. */
export const stockScanJob = defineRunJob('stock-scan', 'stock');
