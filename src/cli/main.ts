import { Command } from 'commander';
import { registerSandboxCommand } from './sandboxCommand.js';
import { registerRunOnceCommand } from './runOnceCommand.js';
import { registerStoreCommands } from './storeCommands.js';
import { registerOrdersCommand } from './ordersCommand.js';
import { registerStatusCommand } from './statusCommand.js';
import { registerCheckCommand } from './checkCommand.js';
import { registerDemoCommand } from './demoCommand.js';
import { registerErpCommand } from './erpCommand.js';
import { describeError, isErpSyncError } from '../domain/errors.js';
import { VERSION } from '../version.js';

const program = new Command()
  .name('erp-sync')
  .description('Keeps an ERP and a Commerce Management Service account (API v2) in step.')
  .version(VERSION)
  .option('-c, --config <file>', 'configuration file (YAML); default: env ERP_SYNC_CONFIG')
  .showHelpAfterError();

registerSandboxCommand(program);
registerRunOnceCommand(program);
registerStoreCommands(program);
registerOrdersCommand(program);
registerStatusCommand(program);
registerCheckCommand(program);
registerDemoCommand(program);
registerErpCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`erp-sync: ${describeError(error)}\n`);
  process.exitCode = isErpSyncError(error) && error.code === 'config_invalid' ? 78 : 1;
}
