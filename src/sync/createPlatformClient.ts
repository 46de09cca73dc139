import { createApiClient, type ApiClient, type ApiClientOptions } from '../api/index.js';
import type { ApiConfig } from '../config.js';
import type { Logger } from '../logger.js';

/** The API client the configuration describes; `overrides` for callers with their own bounds (check). */
export function createPlatformClient(
  api: ApiConfig,
  logger: Logger,
  overrides: Partial<ApiClientOptions> = {},
): ApiClient {
  return createApiClient({
    baseUrl: api.baseUrl,
    apiKey: api.apiKey,
    authHeader: api.authHeader,
    timeoutMs: api.timeoutMs,
    maxSockets: api.maxSockets,
    retries: api.retries,
    deadlineMs: api.deadlineMs,
    logger,
    ...overrides,
  });
}
