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

/**
 * The client's bounds for a call someone waits for: a command a person runs (audit, explain: at
 * most 2 retries) or the daemon's account check at start and reload (1). Backing off 0.5-1 s then
 * 1-2 s, 10 s per attempt, 20 s per call: a platform that refuses connections ends the command
 * within about 3 s (exit 2), or delays the daemon's start by seconds, instead of after the
 * configured retries that suit the daemon's jobs (5, backing off to 15 s: 15-30 s). Lower
 * configured values are kept.
 */
export function operatorClientBounds(api: ApiConfig, retries = 2): Partial<ApiClientOptions> {
  return {
    retries: Math.min(api.retries, retries),
    maxBackoffMs: 2_000,
    timeoutMs: Math.min(api.timeoutMs, 10_000),
    deadlineMs: Math.min(api.deadlineMs, 20_000),
  };
}
