// Loaded with `node --import tsx --import ./recordModuleLoads.mjs ...`: appends the URL of every
// module the process resolves from then on, imported or required (in-thread hooks see both), to
// the file named by env MODULE_LOADS_FILE.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import process from 'node:process';

const file = process.env.MODULE_LOADS_FILE;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    if (file) appendFileSync(file, `${result.url}\n`);
    return result;
  },
});
