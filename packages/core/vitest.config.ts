import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A bound for hangs only: a loaded 2-core CI machine can be ten times slower than an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/**/*.test-d.ts', 'src/__fixtures__/**'],
      thresholds: { lines: 95 },
    },
  },
});
