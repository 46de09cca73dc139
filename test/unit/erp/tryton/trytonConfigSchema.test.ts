import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';

const ENV = { CMS_BASE_URL: 'http://127.0.0.1:8787/api/v2', CMS_API_KEY: 'k' };

describe('Tryton configuration', () => {
  it('loads config/tryton-erp.example.yaml with the password from TRYTON_PASSWORD', () => {
    const config = loadConfig({
      file: 'config/tryton-erp.example.yaml',
      env: { ...ENV, TRYTON_PASSWORD: 's3cret-pw' },
    });
    expect(config.erp).toMatchObject({
      type: 'tryton',
      url: 'http://127.0.0.1:8000/',
      database: 'erp',
      password: 's3cret-pw',
      warehouses: ['WH', 'WH2'],
      stock: { field: 'forecast_quantity', incremental: true, overlapSeconds: 300 },
      orders: { confirm: true },
    });
  });

  it('names erp.password and its variable when the password is missing', () => {
    expect(() => loadConfig({ file: 'config/tryton-erp.example.yaml', env: ENV })).toThrow(
      /erp\.password: is required \(set it in the file or with env TRYTON_PASSWORD\)/,
    );
  });

  it('leaves TRYTON_PASSWORD out of a file-ERP configuration (no unknown key there)', () => {
    const config = loadConfig({
      file: 'config/file-erp.example.yaml',
      env: { ...ENV, TRYTON_PASSWORD: 'x' },
    });
    expect(config.erp.type).toBe('file');
    expect(JSON.stringify(config.erp)).not.toContain('password');
  });

  it('refuses an unknown stock field, naming the key', () => {
    expect(() =>
      loadConfig({
        file: 'config/tryton-erp.example.yaml',
        env: { ...ENV, TRYTON_PASSWORD: 'x' },
        overrides: { erp: { stock: { field: 'onhand' } } },
      }),
    ).toThrow(/erp\.stock\.field/);
  });
});
