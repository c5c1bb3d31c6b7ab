// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in plain strings is the configuration syntax under test
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingBin, freePort, type ListeningServer, serving, startServer } from './fixtures/servers.js';
import { mcp } from './index.js';

let server: ListeningServer;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = await startServer([everythingBin, 'streamableHttp'], new RegExp(`listening on port (${port})`), {
    stream: 'stderr',
    env: { ...process.env, PORT: String(port) },
  });
});

afterAll(() => server.stop());

describe('server-everything over Streamable HTTP on 127.0.0.1', () => {
  it('negotiates a protocol version and calls echo, sum and structured content', async () => {
    const plugin = mcp({
      servers: { web: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Test': '${DSH_TEST_HEADER:-yes}' } } },
    });
    try {
      const t = await createTestHost({ plugins: [plugin] });
      await serving(plugin);
      const status = plugin.servers()[0];
      expect(status).toMatchObject({ state: 'ready', transport: 'http' });
      expect(status?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(await t.call('mcp__web__echo', { message: 'over http' })).toMatchObject({
        status: 'ok',
        output: { content: [{ type: 'text', text: 'Echo: over http' }] },
      });
      expect(await t.call('mcp__web__get-sum', { a: 20, b: 22 })).toMatchObject({
        status: 'ok',
        output: { content: [{ text: expect.stringContaining('42') }] },
      });
      expect(await t.call('mcp__web__get-structured-content', { location: 'Los Angeles' })).toMatchObject({
        status: 'ok',
        output: { structuredContent: { temperature: expect.any(Number) } },
      });
    } finally {
      await plugin.close();
    }
  });

  it('streams progress over HTTP', async () => {
    const plugin = mcp({ servers: { web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
    try {
      const t = await createTestHost({ plugins: [plugin] });
      await serving(plugin);
      const outcome = await t.call('mcp__web__trigger-long-running-operation', { duration: 0.3, steps: 3 });
      expect(outcome.status).toBe('ok');
      expect(t.ui.progressUpdates.length).toBeGreaterThan(0);
    } finally {
      await plugin.close();
    }
  });

  it('reports a server that is not listening as MCP_START_FAILED, and its calls never hang', async () => {
    const closedPort = await freePort();
    const plugin = mcp({
      servers: { gone: { type: 'http', url: `http://127.0.0.1:${closedPort}/mcp` } },
      retry: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 1 },
    });
    try {
      await createTestHost({ plugins: [plugin] });
      await plugin.ready();
      expect(plugin.servers()[0]).toMatchObject({ state: 'failed', lastError: { code: 'MCP_START_FAILED' } });
    } finally {
      await plugin.close();
    }
  });
});
