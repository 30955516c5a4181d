import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests spawn the CLI and kubectl; two workers suit the 2-core CI machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
