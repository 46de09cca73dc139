import { Command, CommanderError } from 'commander';
import { registerSandboxCommand } from './sandboxCommand.js';
import { registerRunOnceCommand } from './runOnceCommand.js';
import { registerStoreCommands, registerStoreResetCommand } from './storeCommands.js';
import { registerOrdersCommand } from './ordersCommand.js';
import { registerStatusCommand } from './statusCommand.js';
import { registerCheckCommand } from './checkCommand.js';
import { registerDemoCommand } from './demoCommand.js';
import { registerAuditCommand } from './auditCommand.js';
import { registerExplainCommand } from './explainCommand.js';
import { registerErpCommand } from './erpCommand.js';
import { registerStartCommand } from './startCommand.js';
import { registerSyncCommand } from './syncCommand.js';
import { registerJobsCommand } from './jobsCommand.js';
import { describeError, isErpSyncError } from '../domain/errors.js';
import { VERSION } from '../version.js';
import { EXIT_USAGE, exitCodeOf } from './exitCodes.js';

const program = new Command()
  .name('erp-sync')
  .description('Keeps an ERP and a Commerce Management Service account (API v2) in step.')
  .version(VERSION)
  .option('-c, --config <file>', 'configuration file (YAML); default: env ERP_SYNC_CONFIG')
  .showHelpAfterError()
  // Commander's own exit would be 1, the code of a failed pipeline: usage errors throw instead.
  .exitOverride();

registerSandboxCommand(program);
registerRunOnceCommand(program);
registerStoreCommands(program);
registerStoreResetCommand(program);
registerOrdersCommand(program);
registerStatusCommand(program);
registerCheckCommand(program);
registerDemoCommand(program);
registerAuditCommand(program);
registerExplainCommand(program);
registerErpCommand(program);
registerStartCommand(program);
registerSyncCommand(program);
registerJobsCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the problem (or the help or version asked for).
    process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
  } else {
    process.stderr.write(`erp-sync: ${describeError(error)}\n`);
    process.exitCode = isErpSyncError(error) ? exitCodeOf(error) : 1;
  }
}
