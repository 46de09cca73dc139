/** Groups a stream into arrays of at most `size` items, holding one group in memory at a time. */
export async function* batches<T>(source: AsyncIterable<T> | Iterable<T>, size: number): AsyncGenerator<T[]> {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  let group: T[] = [];
  for await (const item of source) {
    group.push(item);
    if (group.length >= size) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}
