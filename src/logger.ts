import type { Logger } from 'pino';

export type { Logger };

/**
 * A logger that drops everything, without pino (createLogger.ts): for library callers who pass none, and `check`.
 * It has what this code calls on a logger: the level methods, child, bindings, level.
 */
export function silentLogger(): Logger {
  const drop = (): void => undefined;
  const logger = {
    level: 'silent',
    fatal: drop,
    error: drop,
    warn: drop,
    info: drop,
    debug: drop,
    trace: drop,
    silent: drop,
    child: () => logger,
    bindings: () => ({}),
    isLevelEnabled: () => false,
    flush: drop,
  };
  return logger as unknown as Logger;
}
