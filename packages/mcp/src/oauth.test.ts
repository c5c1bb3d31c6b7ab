import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OAuthMcpServer } from './fixtures/oauth-server.js';
import { type AuthorizationRequest, mcp } from './index.js';

let dir: string;
let server: OAuthMcpServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-oauth-'));
});
afterEach(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The person at the browser: opens the page and follows its redirect to dsh's loopback callback. */
const browser = async ({ url }: AuthorizationRequest): Promise<undefined> => {
  const page = await fetch(url, { redirect: 'manual' });
  await fetch(page.headers.get('location') ?? '');
  return undefined;
};

function plugin(extra: Parameters<typeof mcp>[0] = {}) {
  return mcp({
    servers: { docs: { type: 'http', url: server.url } },
    authFile: join(dir, 'auth.json'),
    retry: { initialDelayMs: 10, maxDelayMs: 10, maxAttempts: 3 },
    ...extra,
  });
}

describe('OAuth for Streamable HTTP servers', () => {
  it('asks the host, takes the code at the loopback callback, and calls tools with the token; no secret is logged', async () => {
    server = await OAuthMcpServer.start();
    const asked: string[] = [];
    const p = plugin({
      authorize: async (request) => {
        asked.push(request.url);
        return browser(request);
      },
      elicit: () => ({ action: 'accept', content: {} }),
    });
    try {
      const t = await createTestHost({ plugins: [p] });
      await p.ready();
      expect(p.servers()[0]).toMatchObject({ state: 'ready' });
      expect(asked).toHaveLength(1);
      expect(new URL(asked[0] as string).searchParams.get('code_challenge_method')).toBe('S256');
      // Elicitation defaults: an accepted empty form reaches the server as the schema's defaults.
      expect(await t.call('mcp__docs__whoami', {})).toMatchObject({ status: 'ok' });
      expect(server.lastElicited).toEqual({ name: 'Ada', age: 36 });
      const file = join(dir, 'auth.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const visible = JSON.stringify([t.host.events.list(), p.servers(), p.problems()]);
      for (const secret of [server.accessToken, server.refreshToken, server.clientSecret]) expect(visible).not.toContain(secret);
    } finally {
      await p.close();
    }
  });

  it('keeps tokens across sessions: a second plugin with the same file connects without asking', async () => {
    server = await OAuthMcpServer.start();
    const first = plugin({ authorize: browser });
    await createTestHost({ plugins: [first] });
    await first.ready();
    await first.close();
    const second = plugin({ authorize: () => false });
    try {
      await createTestHost({ plugins: [second] });
      await second.ready();
      expect(second.servers()[0]).toMatchObject({ state: 'ready' });
      expect(server.authorizations).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('is MCP_AUTH_REQUIRED, not a failed start retried with backoff, when nobody can authorize', async () => {
    server = await OAuthMcpServer.start();
    const p = plugin();
    try {
      const t = await createTestHost({ plugins: [p] });
      await p.ready();
      expect(p.servers()[0]).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_REQUIRED' } });
      expect(p.servers()[0]?.lastError?.message).toContain('no `authorize` handler');
      // One 401 on the server/discover probe, one on initialize: none from retries.
      expect(server.unauthorized).toBe(2);
      expect(await t.call('mcp__docs__whoami', {})).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
    } finally {
      await p.close();
    }
  });

  it('is MCP_AUTH_REQUIRED when the person declines', async () => {
    server = await OAuthMcpServer.start();
    const p = plugin({ authorize: () => false });
    try {
      await createTestHost({ plugins: [p] });
      await p.ready();
      expect(p.servers()[0]?.lastError).toMatchObject({ code: 'MCP_AUTH_REQUIRED', message: expect.stringContaining('declined') });
    } finally {
      await p.close();
    }
  });

  it('is MCP_AUTH_FAILED when the authorization server answers with an error, and other servers are unaffected', async () => {
    server = await OAuthMcpServer.start({ refuse: true });
    const p = plugin({ authorize: browser });
    try {
      await createTestHost({ plugins: [p] });
      await p.ready();
      expect(p.servers()[0]?.lastError).toMatchObject({ code: 'MCP_AUTH_FAILED', message: expect.stringContaining('access_denied') });
    } finally {
      await p.close();
    }
  });

  it('refuses a token file that others may read, and one that is not JSON, with MCP_AUTH_STORE_INVALID', async () => {
    server = await OAuthMcpServer.start();
    const file = join(dir, 'auth.json');
    await writeFile(file, '{"version":1,"servers":{}}');
    await chmod(file, 0o644);
    const open = plugin({ authorize: browser });
    try {
      await createTestHost({ plugins: [open] });
      await open.ready();
      expect(open.servers()[0]?.lastError).toMatchObject({ code: 'MCP_AUTH_STORE_INVALID', message: expect.stringContaining('644') });
      expect(server.authorizations).toBe(0);
    } finally {
      await open.close();
    }
    await writeFile(file, '{ not json');
    await chmod(file, 0o600);
    const corrupt = plugin({ authorize: browser });
    try {
      await createTestHost({ plugins: [corrupt] });
      await corrupt.ready();
      expect(corrupt.servers()[0]?.lastError).toMatchObject({
        code: 'MCP_AUTH_STORE_INVALID',
        message: expect.stringContaining('not valid JSON'),
      });
      expect(await readFile(file, 'utf8')).toBe('{ not json'); // never overwritten
    } finally {
      await corrupt.close();
    }
  });

  it('rejects an oauth entry with unknown keys as a bad entry', async () => {
    server = await OAuthMcpServer.start();
    const p = mcp({ servers: { docs: { type: 'http', url: server.url, oauth: { clientSecrett: 'x' } } } });
    await createTestHost({ plugins: [p] });
    expect(p.servers()[0]).toMatchObject({ state: 'invalid', lastError: { code: 'MCP_CONFIG_INVALID' } });
    await p.close();
  });
});
