import { defineRunJob } from './runJob.js';

/** `catalog` on the runs queue: one catalog pipeline run, de-duplicated per pipeline. */
export const catalogJob = defineRunJob('catalog', 'catalog');
