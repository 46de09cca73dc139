import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (cores - 1) is one worker on a 2-core machine, and most files here wait on
    // a child process, a server or a container rather than compute: on 2 cores, two workers ran
    // the suite in 849 s with other work loading the machine, against 1214 s for one on a quiet
    // machine (all green both times), so never fewer than two.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
