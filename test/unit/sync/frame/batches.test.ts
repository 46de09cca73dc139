import { describe, expect, it } from 'vitest';
import { batches } from '../../../../src/sync/frame/batches.js';

describe('batches', () => {
  it('groups a stream into batches of the given size with a short last one', async () => {
    async function* source() {
      for (let i = 0; i < 7; i++) yield i;
    }
    const out: number[][] = [];
    for await (const group of batches(source(), 3)) out.push(group);
    expect(out).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('regroups a source that hands its items on in groups, in order, without reading it item by item', async () => {
    const source = {
      async *groups() {
        yield [0, 1];
        yield [];
        yield [2, 3, 4, 5, 6];
      },
      [Symbol.asyncIterator](): AsyncIterator<number> {
        throw new Error('read item by item');
      },
    };
    const out: number[][] = [];
    for await (const group of batches(source, 3)) out.push(group);
    expect(out).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('refuses a size below 1', async () => {
    await expect(batches([1], 0).next()).rejects.toThrow(RangeError);
  });
});
