/** `erp-sync demo`'s flags. */
export interface DemoOptions {
  /** Keep the work folder (and, inline, the sandbox running until Ctrl-C). */
  keep: boolean;
  /** Work folder to use and keep. */
  dir?: string;
  /** End by itself this many seconds after the narrated steps, instead of at Ctrl-C. */
  forSeconds?: number;
}
