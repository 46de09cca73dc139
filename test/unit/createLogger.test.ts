import { describe, expect, it } from 'vitest';
import { ERP_CONFIG_SLICES } from '../../src/erp/ErpConfig.js';
import { createLogger } from '../../src/createLogger.js';

function logged(value: Record<string, unknown>): string {
  const lines: string[] = [];
  createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } }).info(
    value,
    'configuration',
  );
  return lines.join('');
}

/** `{ a: { b: value } }` for the path ['a', 'b']. */
function nested(path: readonly string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (const key of [...path].reverse()) out = { [key]: out };
  return out as Record<string, unknown>;
}

describe('createLogger', () => {
  it('finds the secrets the adapters declare', () => {
    expect(ERP_CONFIG_SLICES.flatMap((slice) => slice.secrets).length).toBeGreaterThanOrEqual(2);
  });

  it('redacts every secret an adapter declares, in its configuration section and on its own', () => {
    for (const slice of ERP_CONFIG_SLICES) {
      for (const { path } of slice.secrets) {
        const secret = `${slice.type}-S3cret-${path.join('-')}`;
        const erp = { type: slice.type, ...nested(path, secret) };
        for (const value of [{ erp }, { config: { erp } }, { [path[path.length - 1]!]: secret }]) {
          const line = logged(value);
          expect(line).toContain('[redacted]');
          expect(line).not.toContain(secret);
        }
      }
    }
  });

  it('redacts the API key and the headers that carry it', () => {
    const line = logged({ api: { apiKey: 'key-S3cret' }, headers: { authorization: 'Bearer key-S3cret' } });
    expect(line).not.toContain('key-S3cret');
    expect(line).toContain('[redacted]');
  });
});
