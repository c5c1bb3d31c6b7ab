import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost, type TestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OAuthMcpServer, type OAuthServerOptions } from './fixtures/oauth-server.js';
import { everythingBin } from './fixtures/servers.js';
import { type AuthorizationHandler, type AuthorizationRequest, mcp } from './index.js';

// Issue 41: each bad input is a clear coded error for its own server, and nothing else of the session is affected:
// the stdio `everything` server and tool-fs's `read` keep working in the same host.

let dir: string;
let server: OAuthMcpServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-oauth-failures-'));
  await writeFile(join(dir, 'notes.txt'), 'still readable\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The person at the browser: opens the page and follows its redirect to dsh's loopback callback. */
const browser = async ({ url }: AuthorizationRequest): Promise<undefined> => {
  const page = await fetch(url, { redirect: 'manual' });
  await fetch(page.headers.get('location') ?? '');
  return undefined;
};

interface Session {
  readonly t: TestHost;
  readonly p: ReturnType<typeof mcp>;
  readonly asked: string[];
}

/** A host with the OAuth server `docs`, the stdio `everything` server and tool-fs, the way a session has them. */
async function session(options: OAuthServerOptions, authorize: AuthorizationHandler | undefined): Promise<Session> {
  server = await OAuthMcpServer.start(options);
  return sessionOn(server, authorize);
}

/** Like {@link session}, on a server already started (whose token file was written first). */
async function sessionOn(started: OAuthMcpServer, authorize: AuthorizationHandler | undefined): Promise<Session> {
  const asked: string[] = [];
  const p = mcp({
    servers: {
      docs: { type: 'http', url: started.url },
      everything: { command: process.execPath, args: [everythingBin, 'stdio'] },
    },
    authFile: join(dir, 'auth.json'),
    retry: { initialDelayMs: 10, maxDelayMs: 10, maxAttempts: 3 },
    ...(authorize === undefined
      ? {}
      : {
          authorize: (request: AuthorizationRequest) => {
            asked.push(request.server);
            return authorize(request);
          },
        }),
  });
  const t = await createTestHost({ plugins: [toolFs({ cwd: dir }), p] });
  await p.ready();
  return { t, p, asked };
}

function docs(s: Session) {
  return s.p.servers().find((x) => x.name === 'docs');
}

/** The other server and the session's other tools answer as if nothing happened. */
async function expectTheRestUnaffected(s: Session): Promise<void> {
  expect(s.p.servers().find((x) => x.name === 'everything')).toMatchObject({ state: 'ready' });
  expect(await s.t.call('mcp__everything__echo', { message: 'still here' })).toMatchObject({ status: 'ok' });
  const read = await s.t.call('read', { file_path: 'notes.txt' });
  expect(read).toMatchObject({ status: 'ok' });
  expect(JSON.stringify(read)).toContain('still readable');
}

/** No token or secret of the server in anything a person or the model can see. */
function expectNoSecrets(s: Session): void {
  if (server === undefined) return;
  const visible = JSON.stringify([s.t.host.events.list(), s.p.servers(), s.p.problems()]);
  for (const secret of [server.accessToken, server.refreshToken, server.clientSecret]) expect(visible).not.toContain(secret);
}

describe('OAuth failures stay with their server', () => {
  it('refuses protected-resource metadata naming a resource on another origin with MCP_AUTH_FAILED, before asking anyone', async () => {
    const s = await session({ resource: 'http://127.0.0.2:9/mcp' }, browser);
    try {
      expect(docs(s)).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_FAILED' } });
      expect(docs(s)?.lastError?.message).toMatch(/resource/i);
      expect(s.asked).toEqual([]);
      expect(server?.authorizations).toBe(0);
      expect(await s.t.call('mcp__docs__whoami', {})).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
      await expectTheRestUnaffected(s);
      expectNoSecrets(s);
    } finally {
      await s.p.close();
    }
  });

  it('is MCP_AUTH_FAILED naming the error when the authorization server refuses the authorization', async () => {
    const s = await session({ refuse: true }, browser);
    try {
      expect(docs(s)?.lastError).toMatchObject({ code: 'MCP_AUTH_FAILED', message: expect.stringContaining('access_denied') });
      expect(docs(s)?.state).toBe('failed');
      await expectTheRestUnaffected(s);
      expectNoSecrets(s);
    } finally {
      await s.p.close();
    }
  });

  it('is MCP_AUTH_FAILED naming the error when the token endpoint answers with an error', async () => {
    const s = await session({ tokenError: 'invalid_request' }, browser);
    try {
      expect(s.asked).toEqual(['docs']);
      expect(server?.tokenRequests).toEqual(['authorization_code']);
      expect(docs(s)).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_FAILED' } });
      expect(docs(s)?.lastError?.message).toContain('invalid_request');
      await expectTheRestUnaffected(s);
      expectNoSecrets(s);
    } finally {
      await s.p.close();
    }
  });

  describe('an expired refresh token (the token endpoint says invalid_grant)', () => {
    /** A token file from an earlier session: a stale access token and a refresh token the server no longer honours. */
    async function staleTokens(url: string, clientSecret: string): Promise<string> {
      const file = join(dir, 'auth.json');
      const state = {
        client: { client_id: 'dsh-test-client', client_secret: clientSecret },
        tokens: { access_token: 'stale-access-token', token_type: 'Bearer', refresh_token: 'expired-refresh-token' },
      };
      await writeFile(file, JSON.stringify({ version: 1, servers: { [`docs ${url}`]: state } }), { mode: 0o600 });
      await chmod(file, 0o600);
      return file;
    }

    it('forgets the tokens and asks the person again; the new tokens replace the old ones', async () => {
      server = await OAuthMcpServer.start();
      const file = await staleTokens(server.url, server.clientSecret);
      const first = server;
      const s = await sessionOn(first, browser);
      try {
        expect(first.tokenRequests).toEqual(['refresh_token', 'authorization_code']);
        expect(s.asked).toEqual(['docs']);
        expect(docs(s)).toMatchObject({ state: 'ready' });
        expect(await s.t.call('mcp__docs__whoami', {})).toMatchObject({ status: 'ok' });
        const stored = await readFile(file, 'utf8');
        expect(stored).not.toContain('expired-refresh-token');
        expect(stored).toContain(first.accessToken);
        await expectTheRestUnaffected(s);
        expectNoSecrets(s);
      } finally {
        await s.p.close();
      }
    });

    it('is MCP_AUTH_REQUIRED when the person declines the new authorization', async () => {
      server = await OAuthMcpServer.start();
      await staleTokens(server.url, server.clientSecret);
      const first = server;
      const s = await sessionOn(first, () => false);
      try {
        expect(first.tokenRequests).toEqual(['refresh_token']);
        expect(docs(s)).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_REQUIRED' } });
        expect(docs(s)?.lastError?.message).toContain('declined');
        await expectTheRestUnaffected(s);
      } finally {
        await s.p.close();
      }
    });
  });

  it('keeps the other server and tools working when the token file may be read by others, or is not JSON', async () => {
    const file = join(dir, 'auth.json');
    await writeFile(file, '{"version":1,"servers":{}}');
    await chmod(file, 0o644);
    const open = await session({}, browser);
    try {
      expect(docs(open)).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_STORE_INVALID' } });
      expect(open.asked).toEqual([]);
      await expectTheRestUnaffected(open);
    } finally {
      await open.p.close();
      await server?.close();
      server = undefined;
    }
    await writeFile(file, '{ not json');
    await chmod(file, 0o600);
    const corrupt = await session({}, browser);
    try {
      expect(docs(corrupt)).toMatchObject({ state: 'failed', lastError: { code: 'MCP_AUTH_STORE_INVALID' } });
      await expectTheRestUnaffected(corrupt);
      expect(await readFile(file, 'utf8')).toBe('{ not json');
    } finally {
      await corrupt.p.close();
    }
  });
});
