import { runCli } from './runCli.js';

// The entry point of the sources (a checkout runs it through tsx); the installed copy runs the
// same runCli from dist/cli.cjs (dev/buildDist.ts).
await runCli(process.argv);
