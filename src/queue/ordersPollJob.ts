import { defineRunJob } from './runJob.js';

/** `orders-poll` on the runs queue: one orders pipeline run, de-duplicated per pipeline. */
export const ordersPollJob = defineRunJob('orders-poll', 'orders');
