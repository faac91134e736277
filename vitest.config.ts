import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts', 'site/test/**/*.test.ts'],
    // Load tests share one 2-core machine with the redis-server they drive: run files one at a
    // time so one test's load does not skew another's numbers or time it out.
    fileParallelism: false,
    // The one limit on a test's time, and only a guard against a hang: no test waits on a guess of
    // how slow the machine is. A test that takes 10 s on a quiet 2-core machine took over a minute at
    // load average 10-17, so the guard is generous; tests do not set shorter ones of their own.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
