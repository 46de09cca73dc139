import { defineRunJob } from './runJob.js';

/** `prices-scan` on the runs queue: one prices pipeline run, de-duplicated per pipeline. */
export const pricesScanJob = defineRunJob('prices-scan', 'prices');
