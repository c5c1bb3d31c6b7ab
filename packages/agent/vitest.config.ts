import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The README's examples import the package by its name: they run against this source.
    alias: [
      { find: /^@deepseek-ai\/dsh-agent$/, replacement: src('index.ts') },
      { find: /^@deepseek-ai\/dsh-agent\/connect$/, replacement: src('connect.ts') },
      { find: /^@deepseek-ai\/dsh-agent\/(openai-chat|openai-responses|anthropic|gemini)$/, replacement: src('adapters/$1.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts'],
    // A bound for hangs only: a loaded 2-core CI machine can be ten times slower than an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
