import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './projectPaths.js';

const bin = readFileSync(resolve(PROJECT_ROOT, 'bin/erp-sync.js'), 'utf8');
const words = bin.split('\n', 1)[0]!.split(' ');

/** The V8 flags of bin/erp-sync.js's first line (`#!/usr/bin/env -S VAR=value node ...`): every command's. */
export const BIN_LINE_FLAGS: readonly string[] = words.filter((word) => word.startsWith('--'));

/** The V8 flags bin/erp-sync.js sets at run time for every command but the short ones (its LONG_RUN_FLAGS). */
export const BIN_LONG_RUN_FLAGS: readonly string[] = /const LONG_RUN_FLAGS = '([^']+)';/
  .exec(bin)![1]!
  .split(' ');

/**
 * The V8 flags a long command (start, run-once ...) of bin/erp-sync.js runs with, for a bench or test
 * that starts the sources with `node --import tsx` and must measure what a deployment runs.
 */
export const BIN_NODE_FLAGS: readonly string[] = [...BIN_LINE_FLAGS, ...BIN_LONG_RUN_FLAGS];

/** The environment that line sets for node (the C library's allocator settings). */
export const BIN_NODE_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  words
    .filter((word) => /^[A-Z_]+=/.test(word))
    .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
);
