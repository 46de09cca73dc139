import { fileURLToPath } from 'node:url';

/**
 * The folder of package.json and config/: one level above this module, which is src/projectRoot.ts
 * in a checkout and a file of dist/ installed (dist/ is flat: dev/buildDist.ts), whichever chunk
 * of the bundle it ends up in.
 */
export const PROJECT_ROOT: string = fileURLToPath(new URL('..', import.meta.url));
