import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { runCli, STACK_TRACE } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'cms_secret_key_that_must_never_be_printed';
const URL = 'http://127.0.0.1:9/api/v2';

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const erpLines = ['erp:', '  type: file', `  path: ${dir}`, 'store:', `  path: ${join(dir, 'store.db')}`];

describe('configuration loading', () => {
  it('loads config/file-erp.example.yaml with the current schema', () => {
    const config = loadConfig({
      file: 'config/file-erp.example.yaml',
      env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY },
    });
    expect(config.api).toMatchObject({ baseUrl: URL, apiKey: KEY, timeoutMs: 15_000, retries: 5 });
    // Its paths are relative to its folder: the project's data/ folder.
    expect(config.erp).toMatchObject({
      type: 'file',
      path: resolve('data/erp'),
      delimiter: 'auto',
      archive: false,
    });
    expect(config.sync).toMatchObject({
      batchSize: 1000,
      concurrency: 4,
      safetyBuffer: { units: 0, rules: [] },
    });
    expect(config.store).toEqual({ path: resolve('data/erp-sync.db') });
  });

  it('loads the shipped deployment configurations too', () => {
    for (const shipped of ['deploy/config.docker.yaml', 'deploy/config.systemd.yaml']) {
      const config = loadConfig({ file: shipped, env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY } });
      expect(config.erp.type, shipped).toBe('file');
    }
  });

  it('takes the file from ERP_SYNC_CONFIG, and CMS_BASE_URL / CMS_API_KEY win over the file', () => {
    const path = file('with-key.yaml', [
      'api:',
      '  baseUrl: http://file.example/api/v2',
      '  apiKey: from-the-file',
      ...erpLines,
    ]);
    expect(loadConfig({ env: { ERP_SYNC_CONFIG: path } }).api).toMatchObject({
      baseUrl: 'http://file.example/api/v2',
      apiKey: 'from-the-file',
    });
    expect(
      loadConfig({ env: { ERP_SYNC_CONFIG: path, CMS_BASE_URL: URL, CMS_API_KEY: KEY } }).api,
    ).toMatchObject({ baseUrl: URL, apiKey: KEY });
    // --config wins over ERP_SYNC_CONFIG
    const other = file('other.yaml', ['api:', '  apiKey: other', `  baseUrl: ${URL}`, ...erpLines]);
    expect(loadConfig({ file: other, env: { ERP_SYNC_CONFIG: path } }).api.apiKey).toBe('other');
  });

  it('reads the key from CMS_API_KEY_FILE (its final line break dropped), never together with CMS_API_KEY', () => {
    const path = file('key-file.yaml', [...erpLines]);
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, `${KEY}\n`);
    const env = { CMS_BASE_URL: URL, CMS_API_KEY_FILE: keyFile };
    expect(loadConfig({ file: path, env }).api.apiKey).toBe(KEY);
    expect(() => loadConfig({ file: path, env: { ...env, CMS_API_KEY: KEY } })).toThrow(/not both/);
    const missing = (() => {
      try {
        loadConfig({ file: path, env: { ...env, CMS_API_KEY_FILE: join(dir, 'absent') } });
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as Error).message).toMatch(/cannot read CMS_API_KEY_FILE .*absent \(ENOENT\)/);
  });

  it('names every bad key, misspelt ones included, in one error', () => {
    const path = file('typo.yaml', [
      ...erpLines.slice(0, 3),
      '  columns: { Sale-Price: [pret_oferta], quantitty: [stoc] }',
      ...erpLines.slice(3),
      'sync:',
      '  batchsize: 50',
      '  concurrency: 0',
      '  safetyBuffer: { units: 1, rules: [{ pattern: "A*", unit: 2 }] }',
    ]);
    let error: unknown;
    try {
      loadConfig({ file: path, env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues).toHaveLength(5);
    expect(issues).toEqual(
      expect.arrayContaining([
        'sync.batchsize: unknown key',
        expect.stringMatching(/^erp\.columns\.quantitty: unknown field; one of sku, variant_sku, quantity, /),
        expect.stringMatching(/^sync\.concurrency: .*1$/),
        'sync.safetyBuffer.rules.0.units: is required',
        'sync.safetyBuffer.rules.0.unit: unknown key',
      ]),
    );
  });
});

describe('erp-sync with a bad configuration', () => {
  it('prints one line per problem naming the key, exits 78, with no stack trace and never the key', async () => {
    const cases: { name: string; args: string[]; env: Record<string, string>; expected: RegExp[] }[] = [
      {
        name: 'missing api key',
        args: ['run-once'],
        env: { ERP_SYNC_CONFIG: file('no-key.yaml', erpLines), CMS_BASE_URL: URL },
        expected: [/^ {2}- api\.apiKey: is required \(set it in the file or with env CMS_API_KEY\)$/m],
      },
      {
        name: 'bad batchSize',
        args: ['run-once', '-c', file('batch.yaml', [...erpLines, 'sync:', '  batchSize: 5000'])],
        env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY },
        expected: [/^ {2}- sync\.batchSize: .*1000$/m],
      },
      {
        name: 'unknown erp type',
        args: [
          'run-once',
          '--config',
          file('sap.yaml', ['erp:', '  type: sap', `  path: ${dir}`, 'store:', `  path: ${dir}/s.db`]),
        ],
        env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY },
        expected: [/^ {2}- erp\.type: .*'file'/m],
      },
      {
        name: 'unreadable file',
        args: ['run-once', '-c', join(dir, 'does-not-exist.yaml')],
        env: { CMS_BASE_URL: URL, CMS_API_KEY: KEY },
        expected: [/cannot read configuration file .*does-not-exist\.yaml: ENOENT/],
      },
      {
        name: 'invalid YAML (with the key on the broken line)',
        args: [
          'run-once',
          '-c',
          file('broken.yaml', ['api:', `  baseUrl: ${URL}`, `  apiKey: [${KEY}`, ...erpLines]),
        ],
        env: { CMS_BASE_URL: URL },
        expected: [/broken\.yaml is not valid YAML: .*line \d+, column \d+$/m],
      },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.args, c.env)));
    results.forEach((result, i) => {
      const { name, expected } = cases[i]!;
      expect({ name, code: result.code }).toEqual({ name, code: 78 });
      expect(result.stderr, name).toMatch(/^erp-sync: config_invalid: /);
      for (const pattern of expected) expect(result.stderr, name).toMatch(pattern);
      expect(result.stderr, name).not.toMatch(STACK_TRACE);
      expect(result.stderr + result.stdout, name).not.toContain(KEY);
      // every line is the headline or one problem
      const lines = result.stderr.trimEnd().split('\n');
      expect(
        lines.slice(1).every((line) => line.startsWith('  - ')),
        name,
      ).toBe(true);
    });
  }, 30_000);

  it('refuses a folder given as the configuration file the same way', async () => {
    mkdirSync(join(dir, 'a-folder'), { recursive: true });
    const result = await runCli(['rejects', '-c', join(dir, 'a-folder')]);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/cannot read configuration file .*a-folder: EISDIR/);
    expect(result.stderr).not.toMatch(STACK_TRACE);
  }, 15_000);
});
