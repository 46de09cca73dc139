import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxListing } from '../../../../../src/erp/file/orders/OutboxListing.js';

let dir: string;
let outbox: string;
let now: number;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-listing-'));
  outbox = join(dir, 'orders');
  await mkdir(outbox);
  now = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A listing of the outbox and its done/ folder, its names answering for 1000 ms of the test's clock. */
const listing = (): OutboxListing => new OutboxListing([outbox, join(outbox, 'done')], 1000, () => now);

/** Asks until the answer is `expected` (a read in the background ends when it ends); the last answer. */
async function settles(ask: () => Promise<boolean>, expected: boolean): Promise<boolean> {
  let answer = await ask();
  for (let k = 0; k < 40 && answer !== expected; k++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    answer = await ask();
  }
  return answer;
}

describe('the outbox folders listing', () => {
  it('answers from its names while they are younger than half its age bound, without reading again', async () => {
    const names = listing();
    expect(await names.mayHold(['1.json'])).toBe(false);
    await writeFile(join(outbox, '2.json'), '{}');
    now = 499;
    // Never read again before half the bound: however long one waits, 2.json stays unseen.
    expect(await settles(() => names.mayHold(['2.json']), true)).toBe(false);
  });

  it('from half its age bound answers from the names it has and reads the folders again in the background', async () => {
    const names = listing();
    expect(await names.mayHold(['3.json'])).toBe(false);
    await writeFile(join(outbox, '3.json'), '{}');
    now = 600;
    // The first answer is the names read at 0 (the new read has not ended yet), the later ones the new read's.
    expect(await names.mayHold(['3.json'])).toBe(false);
    expect(await settles(() => names.mayHold(['3.json']), true)).toBe(true);
  });

  it('at its age bound waits for the new read: a file written since the last one is held at once', async () => {
    const names = listing();
    expect(await names.mayHold(['4.json'])).toBe(false);
    await mkdir(join(outbox, 'done'));
    await writeFile(join(outbox, 'done', '4.json'), '{}');
    now = 1000;
    expect(await names.mayHold(['4.json'])).toBe(true);
  });

  it('holds a name this process wrote during a read in the background, also once that read ends', async () => {
    const names = listing();
    expect(await names.mayHold(['5.json'])).toBe(false);
    now = 700;
    const first = names.mayHold(['5.json']);
    names.add('5.json');
    expect(await first).toBe(true);
    now = 900;
    // Whether the background read had begun before the add or not, its names keep it.
    expect(await settles(() => names.mayHold(['6.json']), true)).toBe(false);
    expect(await names.mayHold(['5.json'])).toBe(true);
  });

  it('a read in the background that fails is no unhandled failure: the next read that is waited for fails', async () => {
    const names = listing();
    expect(await names.mayHold(['7.json'])).toBe(false);
    await rm(outbox, { recursive: true });
    // The outbox is a file now: reading it as a folder fails (ENOTDIR).
    await writeFile(outbox, 'x');
    now = 600;
    expect(await names.mayHold(['7.json'])).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = 1000;
    await expect(names.mayHold(['7.json'])).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
