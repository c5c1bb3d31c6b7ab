import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

// Every ```ts block of the README runs as written (the package's own import pointed at this source).
const root = fileURLToPath(new URL('..', import.meta.url));
const blocksDir = join(root, `.readme-blocks-${process.pid}`);
const text = await readFile(join(root, 'README.md'), 'utf8');
const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);

beforeAll(() => mkdir(blocksDir, { recursive: true }));
afterAll(() => rm(blocksDir, { recursive: true, force: true }));

it('has an example', () => {
  expect(blocks.length).toBeGreaterThan(0);
});

it.each(blocks.map((block, index) => [index, block] as const))('runs README block %i', async (index, block) => {
  const file = join(blocksDir, `block-${index}.ts`);
  await writeFile(file, block.replaceAll("'@deepseek-ai/dsh-ai-sdk'", "'../src/index.js'"));
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    await import(pathToFileURL(file).href);
    // The example prints dsh's reason for asking about the edit.
    expect(log.mock.calls.flat().join('\n')).toMatch(/Edit/);
  } finally {
    log.mockRestore();
  }
});
