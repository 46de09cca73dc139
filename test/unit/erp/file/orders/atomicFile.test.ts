import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  statIfExists,
  writeFileAtomic,
  writeNewFile,
  writeNewFileAtomic,
} from '../../../../../src/erp/file/orders/atomicFile.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('atomic file writes', () => {
  it('writes a new file whole, in a folder it makes when missing, and leaves no temporary file', async () => {
    const path = join(dir, 'orders', '1.json');
    const content = `${'é'.repeat(100_000)}\n`;
    expect(await writeNewFileAtomic(path, content)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await readdir(join(dir, 'orders'))).toEqual(['1.json']);
  });

  it('never replaces an existing file: returns false and leaves it as it was, and no temporary file', async () => {
    const path = join(dir, '2.json');
    await writeFile(path, 'first\n');
    expect(await writeNewFileAtomic(path, 'second\n')).toBe(false);
    expect(await readFile(path, 'utf8')).toBe('first\n');
    expect(await readdir(dir)).toEqual(['2.json']);
  });

  it('of two writers of one new file at once, exactly one wins', async () => {
    const path = join(dir, '3.json');
    const results = await Promise.all(['a\n', 'b\n', 'c\n'].map((c) => writeNewFileAtomic(path, c)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(['a\n', 'b\n', 'c\n']).toContain(await readFile(path, 'utf8'));
    expect(await readdir(dir)).toEqual(['3.json']);
  });

  it('stands back when the other name exists: writes nothing, leaves no temporary file', async () => {
    await writeFile(join(dir, '6.xml'), 'other\n');
    const outcome = await writeNewFile(join(dir, '6.json'), 'x', { unlessExists: join(dir, '6.xml') });
    expect(outcome).toBe('stood-back');
    expect(await readdir(dir)).toEqual(['6.xml']);
    expect(await writeNewFile(join(dir, '7.json'), 'x', { unlessExists: join(dir, '7.xml') })).toBe(
      'written',
    );
    expect(await writeNewFile(join(dir, '7.json'), 'y', { unlessExists: join(dir, '7.xml') })).toBe(
      'existed',
    );
    expect(await readFile(join(dir, '7.json'), 'utf8')).toBe('x');
  });

  it('fails when the other name cannot be looked up, and leaves no temporary file', async () => {
    await writeFile(join(dir, 'file'), 'x');
    const path = join(dir, '8.json');
    await expect(writeNewFile(path, 'x', { unlessExists: join(dir, 'file', '8.xml') })).rejects.toMatchObject(
      {
        code: 'ENOTDIR',
      },
    );
    expect(await readdir(dir)).toEqual(['file']);
  });

  it('writeFileAtomic replaces the file whole', async () => {
    const path = join(dir, '4.json');
    await writeFileAtomic(path, 'old\n');
    await writeFileAtomic(path, 'new\n');
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await readdir(dir)).toEqual(['4.json']);
  });

  it('fails with the file system error when the folder cannot be made, and leaves nothing behind', async () => {
    await writeFile(join(dir, 'file'), 'x');
    const path = join(dir, 'file', '5.json');
    await expect(writeNewFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(writeFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await readdir(dir)).toEqual(['file']);
  });
});

describe('statIfExists', () => {
  it("gives a file's stats, null when nothing is there, and throws any other failure", async () => {
    await writeFile(join(dir, 'file'), 'abc');
    expect((await statIfExists(join(dir, 'file')))?.size).toBe(3);
    expect(await statIfExists(join(dir, 'missing.json'))).toBeNull();
    await expect(statIfExists(join(dir, 'file', 'below.json'))).rejects.toMatchObject({
      code: 'ENOTDIR',
      path: join(dir, 'file', 'below.json'),
    });
  });
});
