import { createRequire } from 'node:module';
import type Iconv from 'iconv-lite';

const requireCommonJs = createRequire(import.meta.url);
let loaded: typeof Iconv | undefined;

/**
 * iconv-lite, loaded at its first use: only files in another encoding than UTF-8 need it, and its
 * tables (about 550 kB of code) would otherwise load with every configuration read (`status`,
 * `check`). A synchronous require, because the configuration's encoding check is synchronous.
 */
export function iconvLite(): typeof Iconv {
  return (loaded ??= requireCommonJs('iconv-lite') as typeof Iconv);
}
