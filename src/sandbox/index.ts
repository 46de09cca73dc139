export { startSandbox, type Sandbox, type SandboxOptions } from './startSandbox.js';
export type { RequestLogEntry, RequestLogListener } from './requestLog.js';
export { DEMO_KEYS } from './seed/demoKeys.js';
export { parseFaultSpec } from './faults/faultSpec.js';
