import { defineRunJob } from './runJob.js';

/** `erp-orders` on the runs queue: one erp-orders pipeline run, de-duplicated per pipeline. */
export const erpOrdersJob = defineRunJob('erp-orders', 'erp-orders');
