import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config.js';

/** Dotted keys of every leaf of the schema (objects are walked; arrays and records are leaves). */
function keysOf(schema: unknown, prefix = ''): string[] {
  let node = schema as {
    def: { type: string; innerType?: unknown; options?: unknown[]; getter?: () => unknown };
    shape?: Record<string, unknown>;
  };
  while (['default', 'optional', 'nullable', 'prefault', 'lazy'].includes(node.def.type)) {
    node = (node.def.getter ? node.def.getter() : node.def.innerType) as typeof node;
  }
  if (node.def.type === 'object' && node.shape) {
    return Object.entries(node.shape).flatMap(([key, child]) =>
      keysOf(child, prefix ? `${prefix}.${key}` : key),
    );
  }
  if (node.def.type === 'union' && node.def.options) {
    return [...new Set(node.def.options.flatMap((option) => keysOf(option, prefix)))];
  }
  return [prefix];
}

describe('docs/configuration.md', () => {
  it('documents every key of the configuration schema', () => {
    const docs = readFileSync('docs/configuration.md', 'utf8');
    const keys = keysOf(configSchema);
    expect(keys).toContain('sync.lease.ttlSeconds');
    expect(keys.length).toBeGreaterThan(30);
    expect(keys.filter((key) => !docs.includes(`\`${key}\``))).toEqual([]);
  });
});
