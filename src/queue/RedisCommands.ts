/**
 * A Redis connection as the short reads shared by the CLI and the daemon use it (the pause, the
 * workers): ioredis's `call` and RespConnection's (`status`, `check`) both fit.
 */
export interface RedisCommands {
  call(command: string, ...args: string[]): Promise<unknown>;
}
