import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A bound for hangs only: a loaded 2-core CI machine can be ten times slower than an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
