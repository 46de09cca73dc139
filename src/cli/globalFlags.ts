/** The options every command takes (given before or after the command's name). */
export interface GlobalFlags {
  /** `--config FILE`; default env ERP_SYNC_CONFIG. */
  config?: string;
  /** `--account NAME`: the account of a configuration with `accounts:` (a single-account one is `default`). */
  account?: string;
}
