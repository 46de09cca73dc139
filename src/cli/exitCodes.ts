import type { ErpSyncError } from '../domain/errors.js';

/** The exit codes of every command (docs/operations.md lists them for the loop and systemd). */
export const EXIT_OK = 0;
/** A pipeline failed (or a command could not do its job). */
export const EXIT_FAILED = 1;
/** Fatal: the platform refused the key, or the account is unusable. */
export const EXIT_FATAL = 2;
/** Usage error: an unknown command, option or value (sysexits EX_USAGE). */
export const EXIT_USAGE = 64;
/** The store belongs to another platform account (sysexits EX_DATAERR): retrying cannot help. */
export const EXIT_OTHER_ACCOUNT = 65;
/** Invalid configuration (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

/** The exit code of an error that ends a command. */
export function exitCodeOf(error: ErpSyncError): number {
  if (error.code === 'config_invalid') return EXIT_CONFIG;
  if (error.code === 'account_unknown') return EXIT_USAGE;
  if (error.code === 'store_account_mismatch') return EXIT_OTHER_ACCOUNT;
  return EXIT_FAILED;
}
