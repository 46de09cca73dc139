import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErpSyncError } from '../../../src/domain/errors.js';
import { RedisReplyError } from '../../../src/queue/RedisReplyError.js';
import { RespConnection } from '../../../src/queue/RespConnection.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

// `status` and `check` read Redis over RespConnection instead of ioredis: the same replies as
// ioredis for the same commands, on a real redis-server with a password.

const PASSWORD = 'pä ss/wörd';
let server: PrivateRedis;
let ioredis: Redis;
const opened: RespConnection[] = [];
const open = async (url: string, timeoutMs = 3_000): Promise<RespConnection> => {
  const connection = await RespConnection.open(url, timeoutMs);
  opened.push(connection);
  return connection;
};
const refusal = async (url: string, timeoutMs = 3_000): Promise<Error> => {
  const error = await open(url, timeoutMs).then(
    () => undefined,
    (failure: unknown) => failure as Error,
  );
  expect(error).toBeDefined();
  return error!;
};

beforeAll(async () => {
  server = await startPrivateRedis({ password: PASSWORD });
  ioredis = server.client();
});

afterAll(async () => {
  for (const connection of opened) connection.close();
  await server.close();
});

describe('RespConnection', () => {
  it('answers every kind of reply as ioredis does, a value split over many packets too', async () => {
    const redis = await open(server.url);
    const big = 'ü'.repeat(300_000) + '\r\n$5\r\n*'; // larger than a socket read, with RESP's own markers inside
    await ioredis.set('resp:text', 'zł\r\noty');
    await ioredis.set('resp:big', big);
    await ioredis.rpush('resp:list', 'a', '', 'c');
    await ioredis.zadd('resp:z', 1, 'one', 2, 'two');
    const commands: [string, ...string[]][] = [
      ['GET', 'resp:text'],
      ['GET', 'resp:missing'],
      ['GET', 'resp:big'],
      ['LRANGE', 'resp:list', '0', '-1'],
      ['LLEN', 'resp:list'],
      ['ZCARD', 'resp:z'],
      ['ZRANGE', 'resp:z', '0', '-1'],
      ['HEXISTS', 'resp:h', 'paused'],
      ['LINDEX', 'resp:list', '-1'],
      ['PING'],
    ];
    for (const command of commands) {
      expect(await redis.call(...command), command.join(' ')).toEqual(await ioredis.call(...command));
    }
    const info = String(await redis.call('INFO', 'server'));
    expect(info).toMatch(/^redis_version:\d+\.\d+/m);
    expect(String(await redis.call('CLIENT', 'LIST'))).toMatch(/ cmd=client\|list /);
  });

  it('reads a transaction in one MULTI/EXEC, each reply in its place, and rejects an error reply with its words', async () => {
    const redis = await open(server.url);
    await ioredis.set('resp:tx', '7');
    const replies = await redis.transaction([
      ['GET', 'resp:tx'],
      ['INCR', 'resp:tx'],
      ['LLEN', 'resp:tx'],
      ['GET', 'resp:none'],
    ]);
    expect(replies.slice(0, 2)).toEqual(['7', 8]);
    expect(replies[2]).toBeInstanceOf(RedisReplyError);
    expect((replies[2] as Error).message).toMatch(/^WRONGTYPE /);
    expect(replies[3]).toBeNull();
    const error = await redis.call('NOSUCHCOMMAND').then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(RedisReplyError);
    expect(error?.message).toMatch(/^ERR unknown command 'NOSUCHCOMMAND'/);
    // the connection goes on after an error reply
    expect(await redis.call('GET', 'resp:tx')).toBe('8');
  });

  it('selects the database of the URL and logs in as the URL user', async () => {
    await ioredis.call('ACL', 'SETUSER', 'reader', 'on', '>secret-2', '~*', '+@all');
    const inThree = await open(
      server.url.replace('redis://:', 'redis://reader:').replace(encodeURIComponent(PASSWORD), 'secret-2') +
        '/3',
    );
    await inThree.call('SET', 'resp:db', 'three');
    expect(await inThree.call('ACL', 'WHOAMI')).toBe('reader');
    expect(await ioredis.get('resp:db')).toBeNull();
    await ioredis.select(3);
    expect(await ioredis.get('resp:db')).toBe('three');
    await ioredis.select(0);
  });

  it('says why it cannot connect, the password never in the message', async () => {
    const wrong = await refusal(server.url.replace(encodeURIComponent(PASSWORD), 'not-it'));
    expect(isErpSyncError(wrong) && wrong.code).toBe('redis_unavailable');
    expect(wrong.message).toMatch(
      /^Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ is not reachable \(WRONGPASS /,
    );
    expect(wrong.message).not.toContain('not-it');

    const port = await freePort();
    const nobody = await refusal(`redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`, 1_000);
    expect(isErpSyncError(nobody) && nobody.code).toBe('redis_unavailable');
    expect(nobody.message).toBe(
      `Redis at redis://:***@127.0.0.1:${port} is not reachable (Redis not reachable within 1 s); start Redis or set redis.url / REDIS_URL, or run with --inline without Redis`,
    );
    expect(nobody.message).not.toContain(PASSWORD);
  });

  it('rejects what is waiting when Redis goes away, and every command after', async () => {
    const redis = await open(server.url);
    // Its failure taken at once: the connection may close before CLIENT KILL's own reply arrives.
    const blocked = redis.call('BLPOP', 'resp:never', '0').then(
      () => undefined,
      (failure: unknown) => failure,
    );
    await ioredis.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    expect(await blocked).toBeInstanceOf(Error);
    await expect(redis.call('PING')).rejects.toThrow();
  });
});
