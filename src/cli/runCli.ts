import { CommanderError } from 'commander';
import { describeError, isErpSyncError } from '../domain/errors.js';
import { createProgram } from './createProgram.js';
import { EXIT_USAGE, exitCodeOf } from './exitCodes.js';

/**
 * Parses the command line and runs its command; the command that runs loads its own module then
 * (createProgram), so `--version` and `--help` start with commander alone. Sets process.exitCode.
 */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the problem (or the help or version asked for).
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
    } else {
      process.stderr.write(`erp-sync: ${describeError(error)}\n`);
      process.exitCode = isErpSyncError(error) ? exitCodeOf(error) : 1;
    }
  }
}
