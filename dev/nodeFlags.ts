import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './projectPaths.js';

const words = readFileSync(resolve(PROJECT_ROOT, 'bin/erp-sync.js'), 'utf8').split('\n', 1)[0]!.split(' ');

/**
 * The V8 flags bin/erp-sync.js runs with (its `#!/usr/bin/env -S VAR=value node ...` line), for a
 * bench or test that starts the sources with `node --import tsx` and must measure what a deployment runs.
 */
export const BIN_NODE_FLAGS: readonly string[] = words.filter((word) => word.startsWith('--'));

/** The environment that line sets for node (the C library's allocator settings). */
export const BIN_NODE_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  words
    .filter((word) => /^[A-Z_]+=/.test(word))
    .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
);
