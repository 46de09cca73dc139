import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { http, type SandboxHttp } from './sandboxHttp.js';

export interface SandboxSuite {
  /** The suite's sandbox (started before the first test, closed after the last). */
  readonly sandbox: Sandbox;
  /** JSON calls with the primary key; usable at module level, it reaches the sandbox once it runs. */
  readonly api: SandboxHttp;
}

/** One sandbox for the whole test file: started in beforeAll, closed in afterAll. */
export function useSandbox(options: SandboxOptions = {}): SandboxSuite {
  let current: Sandbox | undefined;
  const sandbox = (): Sandbox => {
    if (!current) throw new Error('useSandbox: the sandbox is used before beforeAll ran');
    return current;
  };
  beforeAll(async () => {
    current = await startSandbox(options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  const api: SandboxHttp = {
    get: (...args) => http(sandbox()).get(...args),
    post: (...args) => http(sandbox()).post(...args),
    patch: (...args) => http(sandbox()).patch(...args),
    put: (...args) => http(sandbox()).put(...args),
    delete: (...args) => http(sandbox()).delete(...args),
    call: (...args) => http(sandbox()).call(...args),
  };
  return {
    get sandbox() {
      return sandbox();
    },
    api,
  };
}
