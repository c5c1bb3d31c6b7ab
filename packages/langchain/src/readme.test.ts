import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Every ```ts block of the README runs as written, from a file inside the package (so its imports
// resolve as a user's would, `@deepseek-ai/dsh-langchain` included).
const root = fileURLToPath(new URL('..', import.meta.url));
const blocksDir = join(root, `.readme-blocks-${process.pid}`);
const text = await readFile(join(root, 'README.md'), 'utf8');
const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);

beforeAll(async () => {
  await mkdir(blocksDir, { recursive: true });
});
afterAll(async () => {
  await rm(blocksDir, { recursive: true, force: true });
});

describe('the README', () => {
  it('has the example this test runs', () => {
    expect(blocks).toHaveLength(1);
  });

  it('runs the example as written: an interrupt, an approval, one result per call', async () => {
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
    try {
      const file = join(blocksDir, 'example-1.ts');
      await writeFile(file, blocks[0] ?? '');
      await import(file);
    } finally {
      spy.mockRestore();
    }
    expect(logged[0]?.[0]).toMatchObject({ name: 'bash', args: { command: 'echo done > status.txt' } });
    expect(logged[1]).toEqual(['Read the notes and wrote the status.']);
    expect(logged[2]).toEqual([['call_1', 'call_2']]);
  });
});
