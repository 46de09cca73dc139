import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../support/cli.js';

const STORE = join(PROJECT_ROOT, 'src', 'store');
const normal = (name: string): string => name.replace(/_/g, '').toLowerCase();

describe('src/store file names', () => {
  it('name each file after an export of it (OrderLinkRepository.ts holds OrderLinkRepository)', () => {
    const files = readdirSync(STORE).filter((file) => file.endsWith('.ts') && file !== 'index.ts');
    expect(files).toContain('OrderLinkRepository.ts');
    const misnamed = files.filter((file) => {
      const exported = [
        ...readFileSync(join(STORE, file), 'utf8').matchAll(
          /^export (?:abstract )?(?:class|function\*?|const|interface|type) (\w+)/gm,
        ),
      ].map((match) => normal(match[1]!));
      return !exported.includes(normal(basename(file, '.ts')));
    });
    expect(misnamed).toEqual([]);
  });
});
