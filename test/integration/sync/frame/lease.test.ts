import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, processIdentity, type Store } from '../../../../src/store/index.js';
import { acquireLease, LeaseBusyError, LeaseLostError } from '../../../../src/sync/frame/lease.js';

let store: Store | undefined;
afterEach(() => store?.close());

describe('pipeline lease', () => {
  it('makes a second run wait, and gives up after waitMs naming the holder', async () => {
    store = openStore(':memory:');
    const first = await acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 0 });
    const second = acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 150, pollMs: 20 });
    await expect(second).rejects.toBeInstanceOf(LeaseBusyError);
    await expect(second).rejects.toThrow(first.owner);
    first.release();
    const third = await acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 0 });
    third.release();
  });

  it('takes over at once a lease held by a process of this host that no longer exists', async () => {
    store = openStore(':memory:');
    const dead = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    expect(store.leases.acquire('sync:stock', `${hostname()}:${dead}:crashed`, 60_000)).toBe(true);
    const started = Date.now();
    const lease = await acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(5_000); // not after waiting out the live-looking lease
    expect(store.leases.holder('sync:stock')?.owner).toBe(lease.owner);
    lease.release();
  });

  it("takes over a crashed holder's lease when a new process now has its PID (start time differs)", async () => {
    store = openStore(':memory:');
    // A live process stands for the new one that got the dead holder's PID.
    const reused = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      const pid = reused.pid!;
      const [host, , start] = processIdentity(pid).split(':');
      expect(start).toMatch(/^\d+$/);
      const crashedOwner = `${host}:${pid}:${Number(start) - 1000}:crashed`;
      expect(store.leases.acquire('sync:stock', crashedOwner, 60_000)).toBe(true);
      const lease = await acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 2_000, pollMs: 20 });
      expect(store.leases.holder('sync:stock')?.owner).toBe(lease.owner);
      lease.release();

      // The same PID with its own start time is the holder alive: the lease is not taken.
      expect(store.leases.acquire('sync:stock', `${processIdentity(pid)}:alive`, 60_000)).toBe(true);
      await expect(
        acquireLease(store, 'sync:stock', { ttlMs: 10_000, waitMs: 100, pollMs: 20 }),
      ).rejects.toBeInstanceOf(LeaseBusyError);
    } finally {
      reused.kill('SIGKILL');
    }
  });

  it('stops a run whose lease another run took after it expired', async () => {
    let now = 1_000_000;
    store = openStore(':memory:', { now: () => now });
    const lease = await acquireLease(store, 'sync:stock', { ttlMs: 1_000, waitMs: 0 });
    lease.assertHeld();
    now += 5_000; // stalled past the TTL, and another run takes over
    expect(store.leases.acquire('sync:stock', 'other-host:1:x', 1_000)).toBe(true);
    expect(() => lease.assertHeld()).toThrow(LeaseLostError);
    lease.release();
    expect(store.leases.holder('sync:stock')?.owner).toBe('other-host:1:x');
  });
});
