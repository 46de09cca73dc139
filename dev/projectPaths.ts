import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The CLI from the TypeScript sources: run it with `node --import tsx`. */
export const CLI_ENTRY = resolve(PROJECT_ROOT, 'src/cli/main.ts');
