import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts', 'site/test/**/*.test.ts'],
    // Load tests share one 2-core machine with the redis-server they drive: run files one at a
    // time so one test's load does not skew another's numbers or time it out.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
