import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountChoiceError, loadConfig, loadDeployment } from '../../src/config.js';
import { configError } from '../support/configError.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-config-accounts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const URL_A = 'http://127.0.0.1:9/a/api/v2';
const URL_B = 'http://127.0.0.1:9/b/api/v2';
const KEY_A = 'cms_key_of_account_a_never_printed';
const KEY_B = 'cms_key_of_account_b_never_printed';
const ENV = { A_KEY: KEY_A, B_KEY: KEY_B };

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const twoAccounts = (extra: string[] = [], entryB: string[] = []) =>
  file(`two-${Math.random().toString(36).slice(2)}.yaml`, [
    'erp:',
    '  type: file',
    '  path: ./shared-erp',
    'sync:',
    '  concurrency: 3',
    ...extra,
    'accounts:',
    '  - name: acme',
    '    api:',
    `      baseUrl: ${URL_A}`,
    '      apiKeyEnv: A_KEY',
    '  - name: globex',
    '    api:',
    `      baseUrl: ${URL_B}`,
    '      apiKeyEnv: B_KEY',
    '    sync:',
    '      concurrency: 1',
    ...entryB,
  ]);

describe('accounts: several accounts in one configuration', () => {
  it('gives each account the shared sections with its overrides, its key, its own store and prefix', () => {
    const deployment = loadDeployment({ file: twoAccounts(), env: ENV });
    expect(deployment.multi).toBe(true);
    expect(deployment.names).toEqual(['acme', 'globex']);
    const [acme, globex] = deployment.accounts.map((account) => account.config);
    expect(acme!.api).toMatchObject({ baseUrl: URL_A, apiKey: KEY_A });
    expect(globex!.api).toMatchObject({ baseUrl: URL_B, apiKey: KEY_B });
    expect([acme!.sync.concurrency, globex!.sync.concurrency]).toEqual([3, 1]);
    expect(acme!.erp).toMatchObject({ type: 'file', path: join(dir, 'shared-erp') });
    expect([acme!.store, globex!.store]).toEqual([
      { path: join(dir, 'data/erp-sync-acme.db') },
      { path: join(dir, 'data/erp-sync-globex.db') },
    ]);
    expect([acme!.redis.prefix, globex!.redis.prefix]).toEqual(['erp-sync-acme', 'erp-sync-globex']);
  });

  it('loads the shipped example', () => {
    const deployment = loadDeployment({
      file: 'config/accounts.example.yaml',
      env: { ACME_CMS_API_KEY: KEY_A, GLOBEX_CMS_API_KEY: KEY_B },
    });
    expect(deployment.accounts.map((a) => [a.name, a.config.store, a.config.schedules.prices])).toEqual([
      ['acme', { path: resolve('data/erp-sync-acme.db') }, '*/15 * * * *'],
      ['globex', { path: resolve('data/erp-sync-globex.db') }, 'off'],
    ]);
  });

  it('--account loads that account only: another account without its key does not stop it', () => {
    const config = loadConfig({ file: twoAccounts(), env: { A_KEY: KEY_A }, account: 'acme' });
    expect(config.api.apiKey).toBe(KEY_A);
    const error = configError(() =>
      loadConfig({ file: twoAccounts(), env: { A_KEY: KEY_A }, account: 'globex' }),
    );
    expect(error.issues).toEqual(['account globex: api.apiKey: env B_KEY (api.apiKeyEnv) is not set']);
  });

  it('without --account, a command for one account names the accounts there are', () => {
    expect(() => loadConfig({ file: twoAccounts(), env: ENV })).toThrow(
      new AccountChoiceError(
        'the configuration names several accounts (acme, globex): choose one with --account NAME',
        ['acme', 'globex'],
      ),
    );
    expect(() => loadConfig({ file: twoAccounts(), env: ENV, account: 'nope' })).toThrow(
      'no account "nope" in the configuration; its accounts: acme, globex',
    );
  });

  it('a single-account configuration is the account "default", as before', () => {
    const single = file('single.yaml', ['erp:', '  type: file', `  path: ${dir}`]);
    const env = { CMS_BASE_URL: URL_A, CMS_API_KEY: KEY_A };
    const deployment = loadDeployment({ file: single, env });
    expect(deployment.multi).toBe(false);
    expect(deployment.accounts.map((a) => a.name)).toEqual(['default']);
    expect(deployment.accounts[0]!.config.redis.prefix).toBe('erp-sync');
    expect(deployment.accounts[0]!.config.store).toEqual({ path: join(dir, 'data/erp-sync.db') });
    expect(loadConfig({ file: single, env, account: 'default' }).api.apiKey).toBe(KEY_A);
    expect(() => loadConfig({ file: single, env, account: 'acme' })).toThrow(
      'no account "acme": the configuration has no accounts list, its one account is "default"',
    );
  });

  it('every problem names its account, and no key is printed', () => {
    const path = twoAccounts(
      ['store:', '  path: ./one.db'],
      ['    orders:', '      concurrency: 0', '    bogus: 1'],
    );
    const error = configError(() => loadDeployment({ file: path, env: ENV }));
    expect(error.issues).toEqual(['account globex: bogus: unknown key']);
    const shared = configError(() =>
      loadDeployment({ file: twoAccounts(['store:', '  path: ./one.db']), env: ENV }),
    );
    expect(shared.issues).toEqual([
      'account globex: store.path is the store of account acme too; give each account its own store',
    ]);
    const bad = configError(() =>
      loadDeployment({ file: twoAccounts([], ['    orders:', '      concurrency: 0']), env: ENV }),
    );
    expect(bad.issues).toEqual(['account globex: orders.concurrency: Too small: expected number to be >=1']);
    expect(bad.message).not.toContain(KEY_A);
    expect(bad.message).not.toContain(KEY_B);
  });

  it('refuses a key in the file, two entries of one name, and the single-account variables', () => {
    const keyInFile = file('key-in-file.yaml', [
      'erp: { type: file, path: . }',
      'accounts:',
      `  - { name: a, api: { baseUrl: "${URL_A}", apiKey: ${KEY_A} } }`,
      `  - { name: b, api: { baseUrl: "${URL_B}", apiKeyEnv: B_KEY } }`,
      `  - { name: b, api: { baseUrl: "${URL_B}", apiKeyEnv: B_KEY } }`,
    ]);
    const error = configError(() => loadDeployment({ file: keyInFile, env: ENV }));
    expect(error.issues).toEqual([
      'account a: api.apiKey: not in the file: name the environment variable that holds it with api.apiKeyEnv (or a file with api.apiKeyFile)',
      'account b: two accounts have this name',
    ]);
    expect(error.message).not.toContain(KEY_A);
    const shared = file('shared-key.yaml', [
      'api: { apiKey: a-key-for-everyone }',
      'erp: { type: file, path: . }',
      'accounts:',
      `  - { name: a, api: { baseUrl: "${URL_A}", apiKeyEnv: A_KEY } }`,
    ]);
    expect(configError(() => loadDeployment({ file: shared, env: {} })).issues).toEqual([
      'api.apiKey: not with accounts: each entry names its key (api.apiKeyEnv or api.apiKeyFile)',
    ]);
    const withEnv = configError(() =>
      loadDeployment({ file: twoAccounts(), env: { ...ENV, CMS_API_KEY: KEY_A } }),
    );
    expect(withEnv.issues[0]).toMatch(/^accounts: CMS_API_KEY is set, but the configuration lists accounts/);
  });

  it('reads a key file, and an ERP variable of the account before the shared one', () => {
    const keyFile = join(dir, 'b.key');
    writeFileSync(keyFile, `${KEY_B}\n`);
    const path = file('tryton.yaml', [
      'accounts:',
      '  - name: shop-b',
      '    api:',
      `      baseUrl: ${URL_B}`,
      `      apiKeyFile: ${keyFile}`,
      '    erp: { type: tryton, url: "http://127.0.0.1:9/", database: db, user: admin }',
    ]);
    const config = loadConfig({
      file: path,
      env: { TRYTON_PASSWORD: 'shared', TRYTON_PASSWORD_SHOP_B: 'own' },
    });
    expect(config.api.apiKey).toBe(KEY_B);
    expect(config.erp).toMatchObject({ type: 'tryton', password: 'own' });
    expect(loadConfig({ file: path, env: { TRYTON_PASSWORD: 'shared' } }).erp).toMatchObject({
      password: 'shared',
    });
  });
});
