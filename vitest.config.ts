import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Fails a test file that leaves servers, timers, processes, worktrees or test branches behind.
    setupFiles: ['test/leak-check/setup.ts'],
  },
});
