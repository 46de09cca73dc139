import { openDatabase } from './db/openDatabase.js';
import { FaultGate } from './faults/faultGate.js';
import { parseFaultSpec } from './faults/faultSpec.js';
import { BODY_LIMIT, buildApp } from './http/app.js';
import { Authenticator } from './http/auth.js';
import { InFlightMeter } from './inFlightMeter.js';
import { RequestLog, type RequestLogEntry, type RequestLogListener } from './requestLog.js';
import { DEMO_KEYS, type DemoKeys } from './seed/demoKeys.js';
import { addBulkProducts, seedDatabase } from './seed/seedDatabase.js';
import { BULK_MAX } from './products/bulkTargets.js';

export interface SandboxOptions {
  host?: string;
  port?: number;
  db?: string;
  seed?: 'demo' | 'empty';
  faults?: string | null;
  faultSeed?: number;
  logRequests?: string;
  recordBodies?: boolean;
  ordersOrder?: 'desc' | 'asc';
  extraProducts?: number;
  logLevel?: string;
  /** Largest request body in bytes (default 1 MiB); smaller to stand in for a stricter platform. */
  bodyLimit?: number;
  /**
   * Most items a bulk request may carry (1 to 1000, default 1000): a smaller one stands in for a
   * platform that takes fewer; a larger request is a 422 naming the limit.
   */
  bulkMax?: number;
}

export interface Sandbox {
  url: string;
  keys: DemoKeys;
  requestLog: {
    entries(): RequestLogEntry[];
    clear(): void;
    onEntry(listener: RequestLogListener): () => void;
  };
  /**
   * Requests in flight per route, e.g. `PATCH /api/v2/products/stock/bulk`: now, and the most at
   * once since the start or `resetPeak` (what many clients together asked of the platform at once).
   */
  inFlight: Pick<InFlightMeter, 'now' | 'peak' | 'resetPeak'>;
  setFaults(spec: string | null): void;
  /** Revokes (or restores) an API key at runtime, as an account owner would in the platform's UI. */
  setKeyRevoked(key: string, revoked: boolean): void;
  close(): Promise<void>;
}

/** Starts the API v2 sandbox on HOST:PORT (port 0: a free one) and resolves when it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  parseFaultSpec(options.faults ?? null); // fail before opening anything
  if (
    options.bulkMax !== undefined &&
    !(Number.isInteger(options.bulkMax) && options.bulkMax >= 1 && options.bulkMax <= BULK_MAX)
  )
    throw new Error(`bulkMax must be an integer from 1 to ${BULK_MAX}, got ${options.bulkMax}`);
  const db = openDatabase(options.db ?? ':memory:');
  try {
    const ids = seedDatabase(db, options.seed ?? 'demo');
    if (options.extraProducts) addBulkProducts(db, ids.primary, options.extraProducts);
  } catch (error) {
    db.close();
    throw error;
  }
  const auth = new Authenticator(db);
  const log = new RequestLog(options.logRequests);
  const inFlight = new InFlightMeter();
  const gate = new FaultGate(
    auth,
    log,
    options.recordBodies ?? false,
    options.faultSeed ?? Date.now() % 2 ** 31,
    inFlight,
  );
  gate.setFaults(options.faults ?? null);
  const app = buildApp({
    db,
    auth,
    gate,
    logLevel: options.logLevel ?? 'warn',
    recordBodies: options.recordBodies ?? false,
    ordersOrder: options.ordersOrder ?? 'desc',
    bodyLimit: options.bodyLimit ?? BODY_LIMIT,
    ...(options.bulkMax !== undefined ? { bulkMax: options.bulkMax } : {}),
  });
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    await log.close();
    db.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed = false;
  return {
    url: `http://${urlHost}:${port}/api/v2`,
    keys: { ...DEMO_KEYS },
    requestLog: {
      entries: () => log.entries(),
      clear: () => log.clear(),
      onEntry: (listener) => log.onEntry(listener),
    },
    inFlight: {
      now: (route) => inFlight.now(route),
      peak: (route) => inFlight.peak(route),
      resetPeak: (route) => inFlight.resetPeak(route),
    },
    setFaults: (spec) => gate.setFaults(spec),
    setKeyRevoked: (key, revoked) => {
      db.prepare('UPDATE api_keys SET revoked = ? WHERE key = ?').run(revoked ? 1 : 0, key);
      auth.forget(key);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await log.close();
      db.close();
    },
  };
}
