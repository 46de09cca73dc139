export {
  createAccountMetrics,
  createMetrics,
  ITEM_OUTCOMES,
  NO_RESPONSE_STATUS,
  QUEUE_STATES,
  type AccountMetrics,
  type Metrics,
} from './createMetrics.js';
export {
  DASHBOARD_PASSWORD_ENV,
  DEFAULT_OPS_HOST,
  DEFAULT_OPS_PORT,
  startOpsServer,
  type OpsAccount,
  type OpsServer,
  type OpsServerOptions,
  type Readiness,
} from './startOpsServer.js';
export { OpsServerError } from './OpsServerError.js';
export { routeTemplate, API_ROUTES, UNKNOWN_ROUTE } from './routeTemplate.js';
export { isLoopbackHost } from './isLoopbackHost.js';
