import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../../src/config.js';
import { DEMO_KEYS, startSandbox } from '../../../src/sandbox/index.js';
import { PROJECT_ROOT } from '../../support/cli.js';
import { TEST_POSTGRES_URL, TestStores } from '../../support/testStores.js';
import { startPrivateRedis } from '../../../dev/redisServer.js';

// The image itself is built and run by test/image/smoke.sh (CI, as root with a Docker engine).
// What is checked here, without an engine:
// - the Dockerfile builds without a registry and with the legacy builder (no `# syntax=` line, no
//   BuildKit-only flags), on the Node of .nvmrc;
// - every file the Dockerfile copies from the build context exists and is not in .dockerignore;
// - the runtime stage's file layout, rebuilt in a temp root from the Dockerfile's own COPY, `ln -s`
//   and `chmod` lines (dist from `npm run build`'s dev/buildDist.ts, node_modules holding only the
//   production dependencies as `npm prune --omit=dev` leaves them, so no tsx; this process's node
//   for the build stage's), runs: --help, --version, demo (config/sample, package.json), and the
//   entrypoint loop with the image's ENV, default config and health check against the real sandbox.

interface Instruction {
  stage: string;
  /** WORKDIR in effect for this instruction. */
  workdir: string;
  keyword: string;
  args: string;
}

function dockerfileInstructions(): Instruction[] {
  const text = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const out: Instruction[] = [];
  let stage = '';
  let workdir = '/';
  for (const line of logical) {
    const [word, ...rest] = line.split(/\s+/);
    const keyword = word!.toUpperCase();
    const args = rest.join(' ');
    if (keyword === 'FROM') {
      stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? '';
      workdir = '/';
    }
    if (keyword === 'WORKDIR') workdir = resolve(workdir, args);
    out.push({ stage, workdir, keyword, args });
  }
  return out;
}

interface Copy {
  stage: string;
  from: string | undefined;
  flags: string[];
  sources: string[];
  /** Absolute destination in the image. */
  dest: string;
}

function copies(instructions: Instruction[]): Copy[] {
  return instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      const sources = paths.slice(0, -1);
      const target = resolve(i.workdir, paths.at(-1)!);
      return sources.map((source) => ({
        stage: i.stage,
        from,
        flags,
        sources: [source],
        // `COPY a b dir/`: each source lands in dir; `COPY a b`: a is copied to b
        dest: sources.length > 1 || paths.at(-1)!.endsWith('/') ? join(target, basename(source)) : target,
      }));
    })
    .flat();
}

const instructions = dockerfileInstructions();
const allCopies = copies(instructions);

function ignorePatterns(): RegExp[] {
  return readFileSync(join(PROJECT_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((pattern) => {
      if (pattern.startsWith('!')) throw new Error('exceptions in .dockerignore are not handled here');
      const body = pattern
        .replace(/^\/+/, '')
        .split('**/')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('(?:.*/)?');
      return new RegExp(`^${body}$`);
    });
}

function filesUnder(path: string): string[] {
  const full = join(PROJECT_ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => filesUnder(join(path, name)));
}

const isIgnored = (file: string, patterns: RegExp[]): boolean => {
  const parts = file.split('/');
  return parts.some((_, n) => patterns.some((re) => re.test(parts.slice(0, n + 1).join('/'))));
};

let root: string;
let buildResult: { code: number | null; output: string };
const cleanups: string[] = [];

/** Container path -> path in the temp root. */
const inRoot = (containerPath: string): string => join(root, containerPath);

function productionNodeModules(target: string): void {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
  };
  // what `npm prune --omit=dev --omit=optional` keeps
  for (const [key, meta] of Object.entries(lock.packages)) {
    const omitted = meta.dev || meta.optional || meta.devOptional;
    if (!key.startsWith('node_modules/') || key.slice(13).includes('/node_modules/') || omitted) continue;
    const link = join(target, key.slice(13));
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(PROJECT_ROOT, key), link);
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'erp-sync-image-'));
  cleanups.push(root);
  const buildWorkdir = instructions.find(
    (i) => i.stage === 'build' && i.keyword === 'RUN' && /npm ci/.test(i.args),
  )!.workdir;
  // Build-stage paths copied from the context (e.g. /app/src <- src); dist and node_modules are
  // the build's own outputs.
  const buildPaths = new Map<string, string>();
  for (const c of allCopies.filter((c) => c.stage === 'build' && !c.from))
    buildPaths.set(c.dest, c.sources[0]!);
  const distDir = join(root, '.build-dist');
  buildResult = await new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'dev', 'buildDist.ts'), '--no-source-maps', '--outdir', distDir],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', (code) => done({ code, output }));
  });

  for (const c of allCopies.filter((c) => c.stage === 'runtime')) {
    const dest = c.dest;
    for (const source of c.sources) {
      let from: string | 'node_modules';
      if (!c.from) from = join(PROJECT_ROOT, source);
      else if (source === '/usr/local/bin/node') from = process.execPath;
      else if (source === join(buildWorkdir, 'dist')) from = distDir;
      else if (source.endsWith('/node_modules')) from = 'node_modules';
      else {
        const contextPath = buildPaths.get(source);
        if (!contextPath) throw new Error(`COPY --from=build ${source}: the build stage does not produce it`);
        from = join(PROJECT_ROOT, contextPath);
      }
      const target = inRoot(dest);
      mkdirSync(dirname(target), { recursive: true });
      if (from === 'node_modules') productionNodeModules(target);
      else if (from === process.execPath) symlinkSync(from, target);
      else cpSync(from, target, { recursive: true });
    }
  }
  for (const run of instructions.filter((i) => i.stage === 'runtime' && i.keyword === 'RUN')) {
    for (const [, target, link] of run.args.matchAll(/\bln -s (\S+) (\S+)/g)) {
      mkdirSync(dirname(inRoot(link!)), { recursive: true });
      symlinkSync(inRoot(target!), inRoot(link!));
    }
    for (const [, mode, paths] of run.args.matchAll(/\bchmod ([0-7]{4}) ((?:\/\S+ ?)+)/g)) {
      for (const path of paths!.trim().split(' ')) chmodSync(inRoot(path), parseInt(mode!, 8));
    }
  }
  mkdirSync(inRoot('/data/erp'), { recursive: true });
  mkdirSync(inRoot('/tmp'), { recursive: true });
}, 90_000);

afterAll(() => {
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
});

/** The runtime stage's ENV, with container paths moved into the temp root. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of instructions.filter((i) => i.stage === 'runtime' && i.keyword === 'ENV')) {
    for (const [, key, value] of i.args.matchAll(/(\w+)=(\S+)/g)) {
      env[key!] = value!.startsWith('/') ? inRoot(value!) : value!;
    }
  }
  return env;
}

/** This process's environment without the variables that would change what erp-sync does. */
function cleanEnv(): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(base))
    if (/^(ERP_SYNC_|CMS_|LOG_LEVEL$|NODE_|REDIS_URL$)/.test(key)) delete base[key];
  return base;
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = root,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = cleanEnv();
  return new Promise((done, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...base, PATH: `${inRoot('/usr/local/bin')}:${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe('Dockerfile', { timeout: 60_000 }, () => {
  it('copies only files that exist in the repository and are not excluded by .dockerignore', () => {
    const patterns = ignorePatterns();
    const contextCopies = allCopies.filter((c) => !c.from);
    expect(contextCopies.length).toBeGreaterThan(5);
    for (const c of contextCopies) {
      for (const source of c.sources) {
        expect(existsSync(join(PROJECT_ROOT, source)), `${source} exists`).toBe(true);
        for (const file of filesUnder(source)) {
          expect(isIgnored(file, patterns), `${file} is not excluded by .dockerignore`).toBe(false);
        }
      }
    }
    // and the build context leaves out what must not be shipped or slows the build
    for (const path of ['node_modules/x', '.git/HEAD', 'dist/cli.cjs', 'erp-sync.env', 'data/erp-sync.db']) {
      expect(isIgnored(path, patterns), `${path} is excluded`).toBe(true);
    }
  });

  it('builds without a registry and with the legacy builder, on the Node of .nvmrc', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    // a `# syntax=` line makes every build fetch a frontend image from a registry
    expect(text).not.toMatch(/^#\s*syntax\s*=/im);
    // flags that only BuildKit knows (--chmod, --link, --mount ...) fail under docker-compose 1.29
    for (const c of allCopies) expect(c.flags.filter((f) => !f.startsWith('--from='))).toEqual([]);
    expect(instructions.filter((i) => i.keyword === 'RUN' && i.args.startsWith('--'))).toEqual([]);
    const args = Object.fromEntries(
      instructions.filter((i) => i.keyword === 'ARG' && i.stage === '').map((i) => i.args.split('=')),
    ) as Record<string, string>;
    // the project's Node.js is the one of .nvmrc
    const nvmrc = readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim();
    expect(nvmrc).toMatch(/^\d+\.\d+\.\d+$/);
    expect(args).toEqual({
      NODE_VERSION: nvmrc,
      NODE_IMAGE: 'node:${NODE_VERSION}-bookworm-slim',
      DEBIAN_IMAGE: 'debian:bookworm-slim',
    });
    // node-gyp (npm's implicit rebuild of better-sqlite3) takes the node image's headers: no
    // download from nodejs.org
    const buildEnv = instructions
      .filter((i) => i.stage === 'build' && i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(buildEnv).toMatch(/\bnpm_config_nodedir=\/usr\/local\b/);
  });

  it('builds in a build stage and runs as a non-root user with a /data volume, health check and entrypoint', () => {
    const froms = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms).toEqual(['${NODE_IMAGE} AS build', '${DEBIAN_IMAGE} AS runtime']);
    const buildRuns = instructions
      .filter((i) => i.stage === 'build' && i.keyword === 'RUN')
      .map((i) => i.args);
    expect(buildRuns.join('\n')).toMatch(/apt-get install -y --no-install-recommends python3 make g\+\+/);
    expect(buildRuns).toContain('npm ci --no-audit --no-fund');
    expect(buildRuns).toContain('npm run build -- --no-source-maps');
    expect(buildRuns.join('\n')).toMatch(/npm prune --omit=dev --omit=optional/);
    // the runtime stage has node (the build stage's binary) and nothing else of the node image
    expect(allCopies.filter((c) => c.stage === 'runtime' && c.sources[0] === '/usr/local/bin/node')).toEqual([
      expect.objectContaining({ from: 'build', dest: '/usr/local/bin/node' }),
    ]);

    const runtime = instructions.filter((i) => i.stage === 'runtime');
    const user = runtime.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(
      runtime.some((i) => i.keyword === 'RUN' && i.args.includes(`useradd`) && i.args.includes(user!)),
    ).toBe(true);
    expect(runtime.find((i) => i.keyword === 'VOLUME')?.args).toBe('["/data"]');
    expect(imageEnv().NODE_ENV).toBe('production');
    expect(
      runtime.some((i) => i.keyword === 'LABEL' && i.args.includes('org.opencontainers.image.title')),
    ).toBe(true);
    const destinations = allCopies.filter((c) => c.stage === 'runtime').map((c) => c.dest);
    // tini (from Debian) is PID 1 and runs the entrypoint script; the default command is the daemon
    const entrypoint = JSON.parse(runtime.find((i) => i.keyword === 'ENTRYPOINT')!.args) as string[];
    expect(entrypoint.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    expect(
      runtime.some(
        (i) => i.keyword === 'RUN' && /apt-get install -y --no-install-recommends tini\b/.test(i.args),
      ),
    ).toBe(true);
    expect(destinations).toContain(entrypoint[2]);
    expect(JSON.parse(runtime.find((i) => i.keyword === 'CMD')!.args)).toEqual(['start']);
    expect(runtime.find((i) => i.keyword === 'EXPOSE')?.args.split(/\s+/)).toContain('9464');
    const health = /CMD (\[.*\])$/.exec(runtime.find((i) => i.keyword === 'HEALTHCHECK')!.args)![1]!;
    expect(destinations).toContain((JSON.parse(health) as string[])[0]);
    // the health check asks the ops server's default port unless told otherwise
    expect(imageEnv().ERP_SYNC_HEALTH_URL).toBe('http://127.0.0.1:9464/healthz');
  });

  it('builds dist/ (npm run build: the bundle) without errors or warnings', () => {
    expect(buildResult.output).toBe('');
    expect(buildResult.code).toBe(0);
    // flat: the CLI, the PostgreSQL store's worker thread and the demo's janitor side by side
    for (const entry of ['cli.cjs', 'postgresWorker.js', 'demoJanitorMain.js'])
      expect(existsSync(inRoot(`/app/dist/${entry}`)), entry).toBe(true);
    expect(existsSync(inRoot('/app/dist/cli.cjs.map'))).toBe(false);
    // ASCII only: one other character makes V8 hold the whole source as two-byte (dev/buildDist.ts, asciiOnly)
    // eslint-disable-next-line no-control-regex
    expect(readFileSync(inRoot('/app/dist/cli.cjs'), 'latin1')).not.toMatch(/[^\x00-\x7f]/);
  });

  it('the runtime layout runs the compiled CLI with production dependencies only (no tsx)', async () => {
    expect(existsSync(inRoot('/app/node_modules/better-sqlite3'))).toBe(true);
    expect(existsSync(inRoot('/app/node_modules/tsx'))).toBe(false);
    expect(existsSync(inRoot('/app/node_modules/typescript'))).toBe(false);

    const help = await run('erp-sync', ['--help'], imageEnv());
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    for (const command of ['sandbox', 'run-once', 'rejects', 'links', 'orders', 'status', 'check', 'demo']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const version = await run('erp-sync', ['--version'], imageEnv());
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
    // --help and --version run dist/cli-none.cjs, without any command's code, and say what dist/cli.cjs says
    const none = readFileSync(inRoot('/app/dist/cli-none.cjs'), 'utf8');
    expect(none.length).toBeLessThan(readFileSync(inRoot('/app/dist/cli.cjs'), 'utf8').length / 5);
    expect(none).not.toContain('async function statusCommand(');
    const fromCli = async (args: string[]): Promise<string> =>
      (
        await run(
          process.execPath,
          [
            '-e',
            `require(${JSON.stringify(inRoot('/app/dist/cli.cjs'))}).runCli(process.argv)`,
            'erp-sync',
            ...args,
          ],
          imageEnv(),
        )
      ).stdout;
    expect(help.stdout).toBe(await fromCli(['--help']));
    expect(version.stdout).toBe(await fromCli(['--version']));

    // demo reads ../config/sample relative to dist/: the sample must be in the image. The
    // image has node but no redis-server (and no REDIS_URL): the demo says so and runs inline.
    const nodeOnly = inRoot('/opt/node-only');
    mkdirSync(nodeOnly, { recursive: true });
    symlinkSync(process.execPath, join(nodeOnly, 'node'));
    const path = `${inRoot('/usr/local/bin')}:${nodeOnly}`;
    const demo = await run('erp-sync', ['demo'], { ...imageEnv(), PATH: path }, inRoot('/data'));
    expect(demo.stderr).not.toMatch(/ENOENT|Error:/);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/^No Redis for the daemon \(no redis-server on PATH\)/);
    expect(demo.stdout).toContain('== Done.');
    // the demo keeps to its own temp store, even with the image's environment
    expect(existsSync(inRoot('/data/erp-sync.db'))).toBe(false);
  });

  it('the bundle starts the PostgreSQL store on its worker thread (dist/postgresWorker.js, found from any chunk)', async () => {
    const stores = new TestStores('postgres');
    try {
      const location = stores.location();
      if (location.type !== 'postgres') throw new Error('a postgres location');
      stores.open({}, location).close();
      const config = inRoot('/data/postgres-store.yaml');
      writeFileSync(
        config,
        [
          'api:',
          '  baseUrl: http://127.0.0.1:9/api/v2',
          '  apiKey: cms_not_asked_by_status',
          'erp:',
          '  type: file',
          `  path: ${inRoot('/data/erp')}`,
          'store:',
          '  type: postgres',
          `  url: ${location.url}`,
          `  schema: ${location.schema}`,
        ].join('\n'),
      );
      const status = await run('erp-sync', ['status', '--config', config], {
        ...imageEnv(),
        REDIS_URL: 'redis://127.0.0.1:9',
      });
      expect(status.stderr).toBe('');
      expect(status.stdout).toContain(`store: ${TEST_POSTGRES_URL} (schema ${location.schema})`);
      expect(status.code).toBe(0);
    } finally {
      stores.cleanup();
    }
  });

  it('the default command starts the daemon with the image ENV and config: refused without a dashboard password, healthy with one, exit 0 on SIGTERM', async () => {
    const config = parseConfig({
      ...(parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/config.docker.yaml'), 'utf8')) as object),
      api: { baseUrl: 'http://localhost/api/v2', apiKey: 'x' },
    });
    // dashboard.readOnly unset: the console and Bull Board are read-only, as beyond loopback by default
    expect(config.server).toEqual({ host: '0.0.0.0', port: 9464, dashboard: {} });
    expect(imageEnv().ERP_SYNC_HEALTH_URL).toBe(`http://127.0.0.1:${config.server.port}/healthz`);
    // the same file with the container's /data moved into the temp root, on a free port
    const imageConfig = inRoot('/etc/erp-sync/config.yaml');
    writeFileSync(
      imageConfig,
      readFileSync(imageConfig, 'utf8')
        .replaceAll(' /data/', ` ${inRoot('/data')}/`)
        .replace(/^ {2}port: 9464\b/m, '  port: 0'),
    );
    const command = JSON.parse(
      instructions.filter((i) => i.stage === 'runtime' && i.keyword === 'CMD').at(-1)!.args,
    ) as string[];
    const redis = await startPrivateRedis();
    const sandbox = await startSandbox({ port: 0, logLevel: 'silent' });
    try {
      const env = {
        ...imageEnv(),
        CMS_BASE_URL: sandbox.url,
        CMS_API_KEY: DEMO_KEYS.primary,
        REDIS_URL: redis.url,
        LOG_LEVEL: 'warn',
      };
      // 78 is not restarted (test/integration/deploy/entrypoint.test.ts: the container stays up,
      // unhealthy); ERP_SYNC_ON_HALT=exit ends it here.
      const refused = await run(
        inRoot('/usr/local/bin/docker-entrypoint.sh'),
        command,
        { ...env, ERP_SYNC_ON_HALT: 'exit' },
        inRoot('/data'),
      );
      expect(refused.code).toBe(78);
      expect(refused.stderr).toContain('ERP_SYNC_DASHBOARD_PASSWORD');
      expect(refused.stderr).toMatch(/"exitCode":78/);

      const password = 'image-test-password';
      const daemon = spawn(inRoot('/usr/local/bin/docker-entrypoint.sh'), command, {
        cwd: inRoot('/data'),
        env: {
          ...cleanEnv(),
          PATH: `${inRoot('/usr/local/bin')}:${process.env.PATH}`,
          ...env,
          ERP_SYNC_DASHBOARD_PASSWORD: password,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      daemon.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => daemon.once('exit', (code) => resolve(code)));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let stdout = '';
          const timer = setTimeout(() => reject(new Error(`not ready: ${stderr.slice(-2000)}`)), 40_000);
          daemon.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            const ready = /\{"event":"ready","url":"([^"]+)"\}/.exec(stdout);
            if (ready) {
              clearTimeout(timer);
              resolve(ready[1]!.replace('0.0.0.0', '127.0.0.1'));
            }
          });
        });
        const health = await run(inRoot('/usr/local/bin/erp-sync-healthcheck'), [], {
          ...env,
          ERP_SYNC_HEALTH_URL: `${url}/healthz`,
        });
        expect(health.stdout).toMatch(/^healthy: /);
        expect(health.code).toBe(0);
        expect((await fetch(`${url}/metrics`)).status).toBe(401);
        const metrics = await fetch(`${url}/metrics`, {
          headers: { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` },
        });
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('erp_sync_paused 0');
      } finally {
        daemon.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(stderr).not.toContain(password);
    } finally {
      await sandbox.close();
      await redis.close();
    }
  });

  it("the entrypoint loop runs with the image's ENV and default config, and the health check passes", async () => {
    const config = parseConfig({
      ...(parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/config.docker.yaml'), 'utf8')) as object),
      api: { baseUrl: 'http://localhost/api/v2', apiKey: 'x' },
    });
    expect(config.erp).toMatchObject({ type: 'file', path: '/data/erp' });
    expect(config.store).toEqual({ path: '/data/erp-sync.db' });
    // the same file with the container's /data moved into the temp root
    const imageConfig = inRoot('/etc/erp-sync/config.yaml');
    writeFileSync(
      imageConfig,
      readFileSync(imageConfig, 'utf8').replaceAll(' /data/', ` ${inRoot('/data')}/`),
    );
    for (const file of ['stock.csv', 'prices.csv']) {
      cpSync(join(PROJECT_ROOT, 'config/sample', file), inRoot(`/data/erp/${file}`));
    }

    const sandbox = await startSandbox({ port: 0, logLevel: 'silent' });
    try {
      const env = {
        ...imageEnv(),
        CMS_BASE_URL: sandbox.url,
        CMS_API_KEY: DEMO_KEYS.primary,
        ERP_SYNC_MAX_RUNS: '1',
      };
      const loop = await run(inRoot('/usr/local/bin/docker-entrypoint.sh'), ['loop'], env, inRoot('/data'));
      expect(loop.stderr).toMatch(/"msg":"run finished","run":1,"exitCode":0/);
      expect(loop.code).toBe(0);
      expect(existsSync(inRoot('/data/erp-sync.db'))).toBe(true);
      expect(readdirSync(inRoot('/data/erp/outbox/orders')).length).toBeGreaterThan(0);

      const health = await run(inRoot('/usr/local/bin/erp-sync-healthcheck'), [], env);
      expect(health.stdout).toMatch(/^healthy/);
      expect(health.code).toBe(0);

      const status = await run(inRoot('/usr/local/bin/docker-entrypoint.sh'), ['status', '--json'], env);
      expect(status.code).toBe(0);
      const report = JSON.parse(status.stdout) as { store: string; pipelines: { status: string | null }[] };
      expect(relative(root, report.store)).toBe('data/erp-sync.db');
      expect(report.pipelines.every((p) => p.status !== null)).toBe(true);

      // check from its own file, which leaves out undici's pool and the file readers (never on its paths)
      const check = await run(inRoot('/usr/local/bin/docker-entrypoint.sh'), ['check'], env);
      expect(check.stderr).toBe('');
      expect(check.stdout).toMatch(/^ok {3}platform API: /m);
      expect(check.stdout).toMatch(/^ok {3}ERP \(file\): drop folder /m);
      expect(check.stdout).toMatch(/^ok {3}store: /m);
      const checkFile = readFileSync(inRoot('/app/dist/cli-check.cjs'), 'utf8');
      for (const left of ['node_modules/undici/', 'src/erp/file/openInput.ts'])
        expect(checkFile).not.toContain(left);

      // run-once from its own file: undici's pool and pino are inside it, not read from
      // node_modules, and over http:// it loads neither node:tls nor node:http2 (undici's HTTP/2
      // client waits for its first call; dev/buildDist.ts).
      const loads = inRoot('/tmp/loads.json');
      const recorder = inRoot('/tmp/recordLoads.cjs');
      writeFileSync(
        recorder,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loads)}, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache) })));\n`,
      );
      const once = await run(
        inRoot('/usr/local/bin/docker-entrypoint.sh'),
        ['run-once', '--only', 'stock', '--json'],
        { ...env, NODE_OPTIONS: `--require ${recorder}` },
        inRoot('/data'),
      );
      expect(once.stderr).toBe('');
      expect(once.code).toBe(0);
      const loaded = JSON.parse(readFileSync(loads, 'utf8')) as { builtins: string[]; files: string[] };
      expect(loaded.builtins).toContain('NativeModule http');
      for (const name of ['tls', 'http2']) expect(loaded.builtins).not.toContain(`NativeModule ${name}`);
      expect(loaded.files.some((file) => file.includes('/node_modules/better-sqlite3/'))).toBe(true);
      expect(loaded.files.filter((file) => /\/node_modules\/(undici|pino)\//.test(file))).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
