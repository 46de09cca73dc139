import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './projectPaths.js';

/**
 * The V8 flags bin/erp-sync.js runs with (its `#!/usr/bin/env -S node ...` line), for a bench or
 * test that starts the sources with `node --import tsx` and must measure what a deployment runs.
 */
export const BIN_NODE_FLAGS: readonly string[] = readFileSync(
  resolve(PROJECT_ROOT, 'bin/erp-sync.js'),
  'utf8',
)
  .split('\n', 1)[0]!
  .split(' ')
  .filter((word) => word.startsWith('--'));
