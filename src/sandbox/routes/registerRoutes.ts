import type { Router } from '../http/router.js';
import { registerAccountRoutes } from './accountRoutes.js';
import { registerCatalogReadRoutes } from './catalogReadRoutes.js';
import { registerConnectionRoutes } from './connectionRoutes.js';
import { registerCustomerRoutes } from './customerRoutes.js';
import { registerOrderRoutes } from './orderRoutes.js';
import { registerProductRoutes } from './productRoutes.js';
import { registerTagRoutes } from './tagRoutes.js';

export function registerRoutes(
  router: Router,
  options: { ordersOrder: 'asc' | 'desc'; bulkMax?: number },
): void {
  registerAccountRoutes(router);
  registerProductRoutes(router, options.bulkMax);
  registerOrderRoutes(router, options.ordersOrder);
  registerCustomerRoutes(router);
  registerTagRoutes(router);
  registerCatalogReadRoutes(router);
  registerConnectionRoutes(router);
}
