import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../../src/config.js';
import { DEMO_KEYS } from '../../../src/sandbox/index.js';
import { DASHBOARD_PASSWORD_ENV } from '../../../src/server/index.js';
import { PROJECT_ROOT } from '../../support/cli.js';

// No Docker engine here: docker-compose.yml is read with a YAML parser and checked for what the
// deployment relies on; Redis's command line from it is run by a real redis-server.

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  restart?: string;
  profiles?: string[];
  env_file?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
}

const compose = parseYaml(readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const service = (name: string): Service => compose.services[name]!;

function namedVolume(svc: Service, target: string): string {
  const volume = svc.volumes?.find((v) => v.endsWith(`:${target}`));
  expect(volume, `${target} volume`).toBeDefined();
  const name = volume!.split(':')[0]!;
  expect(Object.keys(compose.volumes)).toContain(name);
  return name;
}

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('docker-compose.yml', () => {
  it('runs Redis, the daemon, and the sandbox only under the demo profile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['erp-sync', 'redis', 'sandbox']);
    expect(service('redis').profiles).toBeUndefined();
    expect(service('erp-sync').profiles).toBeUndefined();
    expect(service('sandbox').profiles).toEqual(['demo']);
  });

  it('keeps Redis 7 with AOF persistence and noeviction, on a volume, health-checked', () => {
    const redis = service('redis');
    expect(redis.image).toMatch(/^redis:7(\.|-|$)/);
    const args = redis.command!.join(' ');
    expect(args).toMatch(/^redis-server /);
    expect(args).toContain('--appendonly yes');
    expect(args).toContain('--maxmemory-policy noeviction');
    expect(namedVolume(redis, '/data')).toBe('redis-data');
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(redis.restart).toBe('unless-stopped');
  });

  it("Redis's command line from the file works on a real redis-server with those settings", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-compose-redis-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const [binary, ...args] = service('redis').command!;
    const child = spawn(binary!, [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir], {
      stdio: 'ignore',
    });
    cleanups.push(() => {
      child.kill('SIGKILL');
    });
    let redis: Redis | undefined;
    for (let attempt = 0; !redis; attempt++) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
      client.on('error', () => {});
      try {
        await client.connect();
        redis = client;
      } catch (error) {
        client.disconnect();
        if (attempt > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    cleanups.push(() => redis.disconnect());
    expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    expect(await redis.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
  });

  it('runs the daemon (`start`) on Redis, with a /data volume, secrets from an env file and the ops port on loopback', () => {
    const daemon = service('erp-sync');
    expect(daemon.build).toBe('.');
    expect(daemon.command).toEqual(['start']);
    expect(daemon.restart).toBe('unless-stopped');
    expect(daemon.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(daemon.depends_on?.redis?.condition).toBe('service_healthy');
    expect(daemon.depends_on?.sandbox).toBeUndefined(); // it is not there without the demo profile
    expect(namedVolume(daemon, '/data')).toBe('erp-sync-data');
    expect(daemon.env_file).toEqual(['erp-sync.env']);
    // host port 9464 unless ERP_SYNC_OPS_PORT says another (test/image/smoke.sh picks a free one)
    expect(daemon.ports).toEqual(['127.0.0.1:${ERP_SYNC_OPS_PORT:-9464}:9464']);
    // the image's configuration listens there, beyond the container's loopback (so: password)
    const imageConfig = parseConfig({
      ...(parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/config.docker.yaml'), 'utf8')) as object),
      api: { baseUrl: 'http://localhost/api/v2', apiKey: 'x' },
    });
    expect(imageConfig.server).toEqual({ host: '0.0.0.0', port: 9464, dashboard: {} });
    // more than the daemon's default shutdownGraceSeconds (30)
    expect(Number(/^(\d+)s$/.exec(daemon.stop_grace_period ?? '')?.[1])).toBeGreaterThan(30);
  });

  it("runs the sandbox from the same image, health-checked by the image's own check", () => {
    const sandbox = service('sandbox');
    expect(sandbox.image).toBe(service('erp-sync').image);
    expect(sandbox.command).toEqual(['sandbox', '--host', '0.0.0.0', '--port', '8787']);
    expect(sandbox.ports).toEqual(['127.0.0.1:${ERP_SYNC_SANDBOX_PORT:-8787}:8787']);
    // the entrypoint marks `sandbox` and the HEALTHCHECK asks it for HTTP (entrypoint.test.ts)
    expect(sandbox.healthcheck).toBeUndefined();
  });

  it('the example env file points at the sandbox service with its demo key and names the dashboard password', () => {
    const example = readFileSync(join(PROJECT_ROOT, 'deploy/erp-sync.env.example'), 'utf8');
    const vars = Object.fromEntries(
      example
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    ) as Record<string, string>;
    expect(vars.CMS_BASE_URL).toBe('http://sandbox:8787/api/v2');
    expect(vars.CMS_API_KEY).toBe(DEMO_KEYS.primary);
    expect(vars[DASHBOARD_PASSWORD_ENV]).toMatch(/^change-me/);
  });
});
