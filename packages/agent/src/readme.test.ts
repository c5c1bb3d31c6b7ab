import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeServer } from './testing/fake-http.js';
import { startOpenAIChatServer } from './testing/openai-chat-server.js';

// Every ```ts block of the README runs as written. The providers' addresses are served by a fake
// DeepSeek (Chat Completions) server on 127.0.0.1; any other address fails the block: no network.
const root = fileURLToPath(new URL('..', import.meta.url));
const blocksDir = join(root, `.readme-blocks-${process.pid}`);

async function readmeBlocks(): Promise<string[]> {
  const text = await readFile(join(root, 'README.md'), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

const blocks = await readmeBlocks();
let server: FakeServer | undefined;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  await mkdir(blocksDir, { recursive: true });
  process.env.DEEPSEEK_API_KEY ??= 'test-key';
});
afterAll(async () => {
  await rm(blocksDir, { recursive: true, force: true });
});
afterEach(async () => {
  globalThis.fetch = realFetch;
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/** fetch, with DeepSeek's API answered by the fake server and every other address refused. */
function redirected(target: FakeServer): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== 'https://api.deepseek.com') {
      return Promise.reject(new Error(`the README test reaches no network address: ${url.href}`));
    }
    return realFetch(`${target.url}${url.pathname}${url.search}`, init);
  };
}

describe('the README', () => {
  it('has the examples this test runs', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))('runs example %i as written', async (n, code) => {
    server = await startOpenAIChatServer([
      { reasoning: 'Look at the package first.', calls: [{ name: 'read', args: '{"file_path":"package.json"}' }] },
      { text: 'It is @deepseek-ai/dsh-agent.' },
    ]);
    globalThis.fetch = redirected(server);
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const file = join(blocksDir, `example-${n}.ts`);
    await writeFile(file, code);
    await import(/* @vite-ignore */ file);
    expect(server.problems).toEqual([]);
    // A block that talks to the model finishes the scripted task: both turns asked, the run ended.
    if (server.requests.length > 0) {
      expect(server.requests).toHaveLength(2);
      expect(logged.flat()).toContain('end');
    }
    expect(logged.length).toBeGreaterThan(0);
  });
});
