import { fileURLToPath } from 'node:url';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingBin, type ListeningServer, serving, startServer } from './fixtures/servers.js';
import { mcp } from './index.js';

/** A 2026-07-28-only server built with the v2 server package (it refuses `initialize`). */
const v2Server = fileURLToPath(new URL('./fixtures/v2-server.mjs', import.meta.url));

let http: ListeningServer;
let url: string;

beforeAll(async () => {
  http = await startServer([v2Server, 'http'], /port (\d+)/, { stream: 'stdout' });
  url = `http://127.0.0.1:${http.found}/mcp`;
});

afterAll(() => http.stop());

describe('spec versions: 2026-07-28 through the v2 client, 2025-11-25 through the v1 client, by negotiation', () => {
  it('speaks 2026-07-28 to v2 servers (stdio and HTTP) and 2025-11-25 to server-everything, in one session', async () => {
    const plugin = mcp({
      servers: {
        modern: { command: process.execPath, args: [v2Server, 'stdio'], protocol: 'auto' },
        web: { type: 'http', url },
        everything: { command: process.execPath, args: [everythingBin] },
      },
    });
    try {
      const t = await createTestHost({ plugins: [plugin] });
      await serving(plugin);
      const byName = Object.fromEntries(plugin.servers().map((s) => [s.name, s]));
      expect(byName.modern).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28', serverInfo: { name: 'v2-fixture' } });
      expect(byName.web).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28', serverInfo: { name: 'v2-fixture' } });
      expect(byName.everything).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
      expect(byName.modern?.tools.map((tool) => tool.name).sort()).toEqual(['mcp__modern__ask', 'mcp__modern__echo', 'mcp__modern__fail']);
      for (const server of ['modern', 'web']) {
        expect(await t.call(`mcp__${server}__echo`, { text: 'hi' })).toMatchObject({
          status: 'ok',
          output: { content: [{ type: 'text', text: 'echo: hi' }] },
        });
        expect(await t.call(`mcp__${server}__fail`, { text: 'no' })).toMatchObject({
          status: 'error',
          error: { code: 'MCP_TOOL_ERROR', message: expect.stringContaining('failed: no') },
        });
      }
      expect(await t.call('mcp__everything__echo', { message: 'v1' })).toMatchObject({
        status: 'ok',
        output: { content: [{ type: 'text', text: 'Echo: v1' }] },
      });
    } finally {
      await plugin.close();
    }
  });

  it('answers elicitation on 2026-07-28 through the same handler, with the schema defaults applied', async () => {
    const asked: string[] = [];
    const plugin = mcp({
      servers: { modern: { command: process.execPath, args: [v2Server, 'stdio'], protocol: 'auto' } },
      elicit: (request) => {
        asked.push(`${request.server}: ${request.message}`);
        return { action: 'accept', content: {} };
      },
    });
    try {
      const t = await createTestHost({ plugins: [plugin] });
      await serving(plugin);
      expect(await t.call('mcp__modern__ask', {})).toMatchObject({
        status: 'ok',
        output: { content: [{ type: 'text', text: 'colour: teal' }] },
      });
      expect(asked).toEqual(['modern: Which colour?']);
    } finally {
      await plugin.close();
    }
  });

  it('restarts a 2026-07-28 server that was killed, logs the crash, and speaks 2026-07-28 again', async () => {
    const plugin = mcp({
      servers: { modern: { command: process.execPath, args: [v2Server, 'stdio'], protocol: 'auto' } },
      retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 },
    });
    try {
      const t = await createTestHost({ plugins: [plugin] });
      await serving(plugin);
      const pid = plugin.servers()[0]?.pid as number;
      process.kill(-pid, 'SIGKILL');
      // The bound only ends a hang (a loaded machine is slow).
      await expect.poll(() => plugin.servers()[0]?.restarts, { timeout: 60_000 }).toBe(1);
      await expect.poll(() => plugin.servers()[0]?.state, { timeout: 60_000 }).toBe('ready');
      expect(plugin.servers()[0]).toMatchObject({
        protocolVersion: '2026-07-28',
        lastCrash: { code: 'MCP_SERVER_EXITED', pid, signal: 'SIGKILL' },
      });
      expect(plugin.servers()[0]?.pid).not.toBe(pid);
      expect(t.host.events.list().some((e) => e.type === 'mcp/server-exited')).toBe(true);
      expect(await t.call('mcp__modern__echo', { text: 'again' })).toMatchObject({ status: 'ok' });
    } finally {
      await plugin.close();
    }
  });

  it('honours a pinned protocol: a 2025 server pinned to 2026-07-28 is MCP_PROTOCOL_UNSUPPORTED, not retried', async () => {
    const plugin = mcp({
      servers: {
        old: { command: process.execPath, args: [everythingBin], protocol: '2026-07-28' },
        modern: { command: process.execPath, args: [v2Server, 'stdio'], protocol: '2025-11-25' },
      },
      retry: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 1 },
    });
    try {
      await createTestHost({ plugins: [plugin] });
      await plugin.ready();
      const byName = Object.fromEntries(plugin.servers().map((s) => [s.name, s]));
      expect(byName.old).toMatchObject({
        state: 'failed',
        lastError: { code: 'MCP_PROTOCOL_UNSUPPORTED', message: expect.stringContaining('does not offer 2026-07-28') },
      });
      // Pinned to 2025-11-25, the modern-only server gets `initialize` (no probe) and refuses it.
      expect(byName.modern).toMatchObject({ state: 'failed', lastError: { code: 'MCP_START_FAILED' } });
    } finally {
      await plugin.close();
    }
  });
});
