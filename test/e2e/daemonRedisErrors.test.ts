import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import { opsGet, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const PASSWORD = 'redis-Secret-4711';

interface LogLine {
  level: number;
  msg: string;
  source?: string;
  redis?: string;
}

function logLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

describe('Redis trouble under a running daemon', () => {
  it('is logged at warn by the worker side too, naming Redis without its password, and recovery at info', async () => {
    world = await startDaemonWorld({ redisPassword: PASSWORD });
    const daemon = await world.start();
    await eventually('ready', async () => (await opsGet(daemon.url, '/readyz')).status === 200, 20_000);

    await world.redis.stop();
    // The workers' own connections: before, their errors went to debug and a worker that could
    // no longer fetch jobs was silent at the default level (info).
    await eventually(
      'warnings from the workers and the worker connection',
      () => {
        const sources = new Set(
          logLines(daemon.stderr())
            .filter((line) => line.level >= 40 && line.redis !== undefined)
            .map((line) => line.source),
        );
        return sources.has('worker connection') && [...sources].some((s) => s?.startsWith('worker '));
      },
      20_000,
    );
    const warnings = logLines(daemon.stderr()).filter((line) => line.level >= 40 && line.redis);
    for (const line of warnings) {
      expect(line.msg).toMatch(/Redis/);
      expect(line.redis).toBe(`redis://:***@127.0.0.1:${world.redis.port}`);
    }
    // Once per source, not once per reconnect attempt (every 200 ms to 5 s).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const perSource = new Map<string, number>();
    for (const line of logLines(daemon.stderr()).filter((l) => l.level >= 40 && l.redis))
      perSource.set(line.source!, (perSource.get(line.source!) ?? 0) + 1);
    expect(Math.max(...perSource.values())).toBe(1);

    await world.redis.start();
    await eventually(
      'the worker connection says it is back',
      () =>
        logLines(daemon.stderr()).some(
          (line) =>
            line.level === 30 && line.source === 'worker connection' && /reachable again/.test(line.msg),
        ),
      20_000,
    );
    expect(daemon.stderr()).not.toContain(PASSWORD);
    expect(daemon.stdout()).not.toContain(PASSWORD);
  }, 90_000);
});
