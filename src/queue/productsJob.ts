import { defineRunJob } from './runJob.js';

/** `products` on the runs queue: one products pipeline run (a no-op unless products.enabled). */
export const productsJob = defineRunJob('products', 'products');
