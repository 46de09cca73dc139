/** No line: the place is in `#places` (a source without a line number, or a line beyond 2^32 - 2). */
const NO_LINE = 0xffffffff;

/**
 * Where each key of one read was first seen, for the duplicate check, held compactly: a read may
 * pass a million keys, and a Map of a million strings costs about 80 MB of heap (a string object
 * and a table entry per key), more than the rest of the read. Here the keys' UTF-8 bytes sit
 * end to end in one buffer, with a typed-array hash table over them: about 30 bytes a key, off the
 * garbage-collected heap. Exact: a key is a duplicate only when its bytes equal an earlier key's.
 */
export class FirstSeen {
  #bytes = Buffer.allocUnsafe(1 << 16);
  #used = 0;
  /** Entry i's bytes: #bytes[#starts[i], #starts[i + 1]). */
  #starts = new Uint32Array(1025);
  #hashes = new Uint32Array(1024);
  #lines = new Uint32Array(1024);
  #count = 0;
  /** Open addressing, a power of two in size: entry index + 1, or 0 for an empty slot. */
  #slots = new Uint32Array(2048);
  /** The few places that are not a line number, by entry index. */
  #places = new Map<number, string>();

  get size(): number {
    return this.#count;
  }

  /**
   * The place `key` was first seen (a line number, or the place's text), or undefined when it is
   * new: then it is remembered as seen at `at`.
   */
  firstOrAdd(key: string, at: number | string): number | string | undefined {
    const start = this.#used;
    this.#reserve(start + key.length * 3);
    const end = start + this.#bytes.write(key, start, 'utf8');
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ this.#bytes[i]!, 0x01000193);
    hash >>>= 0;
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    for (let entry = this.#slots[slot]!; entry !== 0; entry = this.#slots[slot]!) {
      const index = entry - 1;
      if (this.#hashes[index] === hash && this.#sameBytes(index, start, end)) return this.#placeOf(index);
      slot = (slot + 1) & mask;
    }
    this.#add(hash, end, slot, at);
    return undefined;
  }

  #add(hash: number, end: number, slot: number, at: number | string): void {
    const index = this.#count;
    if (index + 1 >= this.#hashes.length) this.#growEntries();
    this.#used = end;
    this.#starts[index + 1] = end;
    this.#hashes[index] = hash;
    if (typeof at === 'number' && Number.isInteger(at) && at >= 0 && at < NO_LINE) this.#lines[index] = at;
    else {
      this.#lines[index] = NO_LINE;
      this.#places.set(index, String(at));
    }
    this.#slots[slot] = index + 1;
    this.#count = index + 1;
    if (this.#count * 2 > this.#slots.length) this.#rehash();
  }

  #placeOf(index: number): number | string {
    const line = this.#lines[index]!;
    return line === NO_LINE ? this.#places.get(index)! : line;
  }

  #sameBytes(index: number, start: number, end: number): boolean {
    const from = this.#starts[index]!;
    if (this.#starts[index + 1]! - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) if (this.#bytes[from + i] !== this.#bytes[start + i]) return false;
    return true;
  }

  #reserve(size: number): void {
    if (size <= this.#bytes.length) return;
    const bytes = Buffer.allocUnsafe(Math.max(size, this.#bytes.length * 2));
    this.#bytes.copy(bytes, 0, 0, this.#used);
    this.#bytes = bytes;
  }

  #growEntries(): void {
    const size = this.#hashes.length * 2;
    this.#hashes = grown(this.#hashes, size);
    this.#lines = grown(this.#lines, size);
    this.#starts = grown(this.#starts, size + 1);
  }

  #rehash(): void {
    const slots = new Uint32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.#count; index++) {
      let slot = this.#hashes[index]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.#slots = slots;
  }
}

function grown(from: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const to = new Uint32Array(size);
  to.set(from);
  return to;
}
