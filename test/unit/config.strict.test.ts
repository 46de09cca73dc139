import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ConfigError, configSchema, loadConfig, parseConfig } from '../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-config-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'cms_secret_key_that_must_never_be_printed';
const BASE = { api: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: KEY }, erp: { type: 'file', path: dir } };

/** Every object schema reachable from `schema`, with its path, and whether it refuses unknown keys. */
function objectsOf(schema: z.ZodType, path = '(root)', out: { path: string; strict: boolean }[] = []) {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  const walk = (child: unknown, at: string): void => void objectsOf(child as z.ZodType, at, out);
  switch (def.type) {
    case 'object': {
      const catchall = def.catchall as { _zod: { def: { type: string } } } | undefined;
      out.push({ path, strict: catchall?._zod.def.type === 'never' });
      for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) {
        walk(child, path === '(root)' ? key : `${path}.${key}`);
      }
      break;
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      walk(def.innerType, path);
      break;
    case 'lazy':
      walk((def.getter as () => unknown)(), path);
      break;
    case 'array':
      walk(def.element, `${path}[]`);
      break;
    case 'union':
      for (const option of def.options as unknown[]) walk(option, path);
      break;
    case 'record':
      walk(def.valueType, `${path}.*`);
      break;
    case 'pipe':
      walk(def.in, path);
      walk(def.out, path);
      break;
    case 'intersection':
      walk(def.left, path);
      walk(def.right, path);
      break;
    default:
      break;
  }
  return out;
}

function issuesOf(raw: unknown): string[] {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('the configuration schema', () => {
  it('refuses unknown keys in every object, at every depth', () => {
    const objects = objectsOf(configSchema);
    // The walk reaches the nested sections (a walk that stopped early would prove nothing).
    expect(objects.map((o) => o.path)).toEqual(
      expect.arrayContaining(['(root)', 'api', 'erp', 'erp.outbox', 'orders', 'orders.oversellGuard']),
    );
    expect(objects.filter((o) => !o.strict).map((o) => o.path)).toEqual([]);
  });

  it('names a misspelt key of orders and the top level instead of importing with the default', () => {
    expect(
      issuesOf({
        ...BASE,
        orders: { importStatus: ['new'], oversellGuard: { enable: false }, updates: { lookback: 1 } },
        stor: { path: 'x' },
      }),
    ).toEqual(
      expect.arrayContaining([
        'orders.importStatus: unknown key',
        'orders.oversellGuard.enable: unknown key',
        'orders.updates.lookback: unknown key',
        'stor: unknown key',
      ]),
    );
  });

  it('bounds retries, maxSockets, windowMinutes, lookbackDays and lease.waitSeconds', () => {
    const issues = issuesOf({
      ...BASE,
      api: { ...BASE.api, retries: 1000, maxSockets: 100_000 },
      sync: { lease: { waitSeconds: 10_000_000 } },
      orders: { oversellGuard: { windowMinutes: 1e9 }, updates: { lookbackDays: 1e6 } },
    });
    for (const key of [
      'api.retries',
      'api.maxSockets',
      'sync.lease.waitSeconds',
      'orders.oversellGuard.windowMinutes',
      'orders.updates.lookbackDays',
    ]) {
      expect(
        issues.some((issue) => issue.startsWith(`${key}: Too big`)),
        key,
      ).toBe(true);
    }
  });

  it('refuses ftp:// and a URL with credentials, without printing them', () => {
    expect(issuesOf({ ...BASE, api: { ...BASE.api, baseUrl: 'ftp://host/api/v2' } })).toEqual([
      expect.stringMatching(/^api\.baseUrl: must be an http:\/\/ or https:\/\/ URL/),
    ]);
    const issues = issuesOf({ ...BASE, api: { ...BASE.api, baseUrl: 'http://user:s3cr3t-pw@host/api/v2' } });
    expect(issues).toEqual([expect.stringMatching(/^api\.baseUrl: must not carry a user or password/)]);
    expect(issues.join('\n')).not.toContain('s3cr3t-pw');
  });

  it('names a key with a trailing space or a CR, and never prints it', () => {
    for (const apiKey of [`${KEY} `, `${KEY}\r`, `${KEY}\n`]) {
      const issues = issuesOf({ ...BASE, api: { ...BASE.api, apiKey } });
      expect(issues).toEqual([expect.stringMatching(/^api\.apiKey: has a leading or trailing space/)]);
      expect(issues.join('\n')).not.toContain(KEY);
    }
    expect(issuesOf({ ...BASE, api: { ...BASE.api, apiKey: 'ab\tcd' } })).toEqual([
      expect.stringMatching(/^api\.apiKey: contains a control character/),
    ]);
  });
});

describe('paths in a configuration file', () => {
  it('are relative to the file, whatever the current directory; the environment stays relative to it', () => {
    const folder = join(dir, 'deployment');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'erp-sync.yaml');
    writeFileSync(
      file,
      ['erp:', '  type: file', '  path: ./erp', '  outbox: { ordersDir: out/orders }', ''].join('\n'),
    );
    const env = { CMS_BASE_URL: 'http://127.0.0.1:9/api/v2', CMS_API_KEY: KEY };
    const config = loadConfig({ file, env });
    if (config.erp.type !== 'file') throw new Error('expected the file adapter');
    expect(config.erp.path).toBe(join(folder, 'erp'));
    expect(config.erp.outbox.ordersDir).toBe(join(folder, 'out/orders'));
    // The default store path too: the file describes the deployment.
    expect(config.store).toEqual({ path: join(folder, 'data/erp-sync.db') });
    expect(loadConfig({ file, env: { ...env, ERP_SYNC_STORE: 'here.db' } }).store).toEqual({
      path: 'here.db',
    });
  });
});
