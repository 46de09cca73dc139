import { ConfigError } from '../../src/config.js';

/** The ConfigError that `load` throws (any other outcome fails the test). */
export function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}
