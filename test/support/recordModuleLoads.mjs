// Loaded with `node --import tsx --import ./recordModuleLoads.mjs ...`: appends the URL of every
// module the process resolves to the file named by env MODULE_LOADS_FILE.
import { register } from 'node:module';
import process from 'node:process';

register('./moduleLoadHooks.mjs', import.meta.url, { data: { file: process.env.MODULE_LOADS_FILE } });
