import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, loadDeployment, parseConfig } from '../../src/config.js';
import { configError } from '../support/configError.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-config-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const API = { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'cms_key_never_printed' };
const ERP = { type: 'file', path: dir };
const PG_URL = 'postgres://erp_sync@db.internal:5432/erp';

describe('store: a PostgreSQL store beside the SQLite file', () => {
  it('takes type postgres with a URL, a schema (erp_sync by default) and the password variable', () => {
    expect(parseConfig({ api: API, erp: ERP, store: { type: 'postgres', url: PG_URL } }).store).toEqual({
      type: 'postgres',
      url: PG_URL,
      schema: 'erp_sync',
    });
    const named = { type: 'postgres', url: PG_URL, schema: 'shop_a', passwordEnv: 'SHOP_A_PG_PASSWORD' };
    expect(parseConfig({ api: API, erp: ERP, store: named }).store).toEqual(named);
  });

  it('keeps a configuration without a store type as it was: an SQLite file', () => {
    expect(parseConfig({ api: API, erp: ERP, store: { path: '/var/lib/erp-sync/state.db' } }).store).toEqual({
      path: '/var/lib/erp-sync/state.db',
    });
  });

  it('refuses a password in the URL without repeating it, a bad schema name, and a file path on postgres', () => {
    const error = configError(() =>
      parseConfig({
        api: API,
        erp: ERP,
        store: { type: 'postgres', url: 'postgres://erp_sync:pg-s3cret@db/erp', schema: 'Bad-Name' },
      }),
    );
    expect(error.issues).toEqual([
      'store.url: holds a password: set it in the environment (PGPASSWORD, or the variable store.passwordEnv names)',
      'store.schema: lower-case letters, digits and _ (a PostgreSQL name)',
    ]);
    expect(error.message).not.toContain('pg-s3cret');
    expect(
      configError(() =>
        parseConfig({ api: API, erp: ERP, store: { type: 'postgres', url: PG_URL, path: 'x.db' } }),
      ).issues,
    ).toEqual(['store.path: unknown key']);
  });

  it('reads a postgres store from a file without adding a file path to it', () => {
    const file = join(dir, 'pg.yaml');
    writeFileSync(
      file,
      ['erp:', '  type: file', `  path: ${dir}`, 'store:', '  type: postgres', `  url: ${PG_URL}`].join('\n'),
    );
    expect(loadConfig({ file, env: { CMS_BASE_URL: API.baseUrl, CMS_API_KEY: API.apiKey } }).store).toEqual({
      type: 'postgres',
      url: PG_URL,
      schema: 'erp_sync',
    });
  });

  it('refuses ERP_SYNC_STORE with a postgres store, saying it sets an SQLite path, not "unknown key"', () => {
    const file = join(dir, 'pg-env.yaml');
    writeFileSync(
      file,
      ['erp:', '  type: file', `  path: ${dir}`, 'store:', '  type: postgres', `  url: ${PG_URL}`].join('\n'),
    );
    const env = { CMS_BASE_URL: API.baseUrl, CMS_API_KEY: API.apiKey, ERP_SYNC_STORE: '/var/lib/x.db' };
    const error = configError(() => loadConfig({ file, env }));
    expect(error.issues).toEqual([
      'store: ERP_SYNC_STORE is set, which sets the file path of an SQLite store, but store.type is postgres: unset ERP_SYNC_STORE, or remove store.type postgres to use the SQLite file',
    ]);
    expect(error.message).not.toContain('unknown key');
    // Other problems of the file are still reported beside it.
    const badSchema = configError(() =>
      loadConfig({ file, env, overrides: { store: { schema: 'Bad-Name' } } }),
    );
    expect(badSchema.issues[0]).toMatch(/^store: ERP_SYNC_STORE is set/);
    expect(badSchema.issues.slice(1)).toEqual([expect.stringMatching(/^store\.schema: /)]);
    // An SQLite store takes it as before.
    const sqliteFile = join(dir, 'sqlite-env.yaml');
    writeFileSync(sqliteFile, ['erp:', '  type: file', `  path: ${dir}`].join('\n'));
    expect(loadConfig({ file: sqliteFile, env }).store).toMatchObject({ path: '/var/lib/x.db' });
  });

  it('gives each account of a shared PostgreSQL database its own schema, and refuses two on one', () => {
    const accounts = (entryB: string[]) => {
      const file = join(dir, `accounts-${Math.random().toString(36).slice(2)}.yaml`);
      const lines = [
        'erp:',
        '  type: file',
        `  path: ${dir}`,
        'store:',
        '  type: postgres',
        `  url: ${PG_URL}`,
        'accounts:',
        '  - name: acme',
        '    api:',
        `      baseUrl: ${API.baseUrl}`,
        '      apiKeyEnv: A_KEY',
        '  - name: globex-eu',
        '    api:',
        `      baseUrl: ${API.baseUrl}`,
        '      apiKeyEnv: B_KEY',
        ...entryB,
      ];
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    };
    const env = { A_KEY: 'a', B_KEY: 'b' };
    const deployment = loadDeployment({ file: accounts([]), env });
    expect(deployment.accounts.map((a) => a.config.store)).toEqual([
      { type: 'postgres', url: PG_URL, schema: 'erp_sync_acme' },
      { type: 'postgres', url: PG_URL, schema: 'erp_sync_globex_eu' },
    ]);
    const clash = configError(() =>
      loadDeployment({ file: accounts(['    store:', '      schema: erp_sync_acme']), env }),
    );
    expect(clash.issues).toEqual([
      'account globex-eu: store.schema is the store of account acme too; give each account its own store.schema',
    ]);
  });
});
