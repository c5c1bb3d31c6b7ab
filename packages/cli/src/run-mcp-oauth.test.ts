import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { type AuthorizationRequest, mcp } from '@deepseek-ai/dsh-mcp';
import { afterEach, describe, expect, it } from 'vitest';
// The agent package's fake Chat Completions server: real HTTP on 127.0.0.1, checking every request it gets.
import type { FakeServer } from '../../agent/dist/testing/fake-http.js';
import { startOpenAIChatServer } from '../../agent/dist/testing/openai-chat-server.js';
import { dshInTerminal, terminalTestsRun, waitFor, warnWithoutTmux } from './fixtures/dsh-terminal.js';
import { put, runDsh, scratchDir } from './fixtures/run-dsh.js';

/** The mcp package's OAuth-protected MCP server (its own authorization server, on 127.0.0.1): what this test uses of it. */
interface OAuthMcpServer {
  readonly url: string;
  readonly origin: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly clientSecret: string;
  readonly authorizations: number;
  readonly lastElicited: unknown;
  close(): Promise<void>;
}
// Its TypeScript source, which vitest runs; a computed path keeps it out of this package's typecheck (another rootDir).
const oauthFixture = fileURLToPath(new URL('../../mcp/src/fixtures/oauth-server.ts', import.meta.url));
const { OAuthMcpServer } = (await import(oauthFixture)) as { OAuthMcpServer: { start(): Promise<OAuthMcpServer> } };

warnWithoutTmux('run-mcp-oauth.test.ts');

const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

async function oauthServer(): Promise<OAuthMcpServer> {
  const server = await OAuthMcpServer.start();
  closers.push(server);
  return server;
}

/** The scripted model: calls the OAuth server's `whoami` (which elicits a form), then answers. */
async function model(): Promise<FakeServer> {
  const server = await startOpenAIChatServer([
    { text: 'Asking who you are.', calls: [{ id: 'call_who', name: 'mcp__docs__whoami', args: '{}' }] },
    { text: 'Thanks, done.' },
  ]);
  closers.push(server);
  return server;
}

/**
 * A workspace whose `.mcp.json` names the OAuth server, whose rules allow its tools (no approval asked), and
 * whose hooks dump every MCP call's hook input to `hook-inputs.txt`.
 */
function project(url: string): { root: string; home: string; log: string; hookInputs: string } {
  const root = scratchDir();
  const home = scratchDir();
  const hookInputs = join(home, 'hook-inputs.txt');
  put(root, '.mcp.json', JSON.stringify({ mcpServers: { docs: { type: 'http', url } } }));
  const dump = put(root, 'hooks/dump.sh', `#!/bin/sh\ncat >> ${JSON.stringify(hookInputs)}\necho >> ${JSON.stringify(hookInputs)}\n`);
  chmodSync(dump, 0o755);
  const hook = [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: './hooks/dump.sh' }] }];
  put(
    root,
    '.claude/settings.json',
    JSON.stringify({ permissions: { allow: ['mcp__docs'] }, hooks: { PreToolUse: hook, PostToolUse: hook } }),
  );
  return { root, home, log: join(home, 'session.jsonl'), hookInputs };
}

/** The person at the browser: opens the page and follows its redirect to dsh's loopback callback. */
async function browse(url: string): Promise<void> {
  const page = await fetch(url, { redirect: 'manual' });
  await fetch(page.headers.get('location') ?? '');
}

/** Authorizes dsh once, as an earlier session would have: the tokens land in `~/.dsh/mcp-auth.json` under `home`. */
async function authorizeBefore(server: OAuthMcpServer, home: string): Promise<void> {
  const p = mcp({
    servers: { docs: { type: 'http', url: server.url } },
    authFile: join(home, '.dsh', 'mcp-auth.json'),
    authorize: async ({ url }: AuthorizationRequest) => {
      await browse(url);
      return undefined;
    },
  });
  await createTestHost({ plugins: [p] });
  await p.ready();
  expect(p.servers()[0]?.state).toBe('ready');
  await p.close();
}

describe('dsh and an OAuth-protected MCP server', () => {
  it('never shows a token or the client secret: not in dsh mcp list, the session log, dsh log or hook inputs', async () => {
    const server = await oauthServer();
    const agent = await model();
    const { root, home, log, hookInputs } = project(server.url);
    await authorizeBefore(server, home);

    const list = await runDsh(['mcp', 'list'], { cwd: root, home });
    const listJson = await runDsh(['mcp', 'list', '--json'], { cwd: root, home });
    expect(list.stdout).toMatch(/docs ready · http/);
    expect(JSON.parse(listJson.stdout)).toMatchObject({ servers: [{ name: 'docs', state: 'ready' }] });

    const run = await runDsh(['run', 'who am I?', '--base-url', agent.url, '--log', log], {
      cwd: root,
      home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✔ (mcp__docs__whoami|docs: whoami) \[call_who\] ok/);
    const read = await runDsh(['log', log], { cwd: root, home });
    const readJson = await runDsh(['log', log, '--json'], { cwd: root, home });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('mcp__docs__whoami');
    // The hooks saw the call: so their inputs are a real place a secret could have leaked to.
    const hooks = readFileSync(hookInputs, 'utf8');
    expect(hooks).toContain('"PreToolUse"');
    expect(hooks).toContain('"PostToolUse"');
    expect(hooks).toContain('mcp__docs__whoami');

    const outputs = {
      'dsh mcp list': list.stdout + list.stderr,
      'dsh mcp list --json': listJson.stdout + listJson.stderr,
      'dsh run': run.stdout + run.stderr,
      'the session log': readFileSync(log, 'utf8'),
      'dsh log': read.stdout + read.stderr,
      'dsh log --json': readJson.stdout + readJson.stderr,
      'hook inputs': hooks,
      'model requests': JSON.stringify(agent.requests),
    };
    const secrets = { 'access token': server.accessToken, 'refresh token': server.refreshToken, 'client secret': server.clientSecret };
    const leaks = Object.entries(outputs).flatMap(([where, text]) =>
      Object.entries(secrets)
        .filter(([, secret]) => text.includes(secret))
        .map(([what]) => `${what} in ${where}`),
    );
    expect(leaks).toEqual([]);
    // The token file does hold them: the grep above looked for the right strings.
    expect(readFileSync(join(home, '.dsh', 'mcp-auth.json'), 'utf8')).toContain(server.refreshToken);
  });

  it('declines an elicitation and an authorization when stdin is not a terminal, saying why', async () => {
    const server = await oauthServer();
    const agent = await model();
    const authorized = project(server.url);
    await authorizeBefore(server, authorized.home);
    const run = await runDsh(['run', 'who am I?', '--base-url', agent.url, '--log', authorized.log], {
      cwd: authorized.root,
      home: authorized.home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('MCP server docs asks: Who are you? — declined: stdin is not a terminal');
    expect(server.lastElicited).toBeUndefined();
    // The tool got the decline (no content), and the model read it.
    expect(JSON.stringify(agent.requests[1]?.body)).toContain('null');

    const fresh = project(server.url);
    const again = await runDsh(['run', 'who am I?', '--base-url', (await model()).url, '--log', fresh.log], {
      cwd: fresh.root,
      home: fresh.home,
      env: { DEEPSEEK_API_KEY: 'test-key' },
    });
    expect(again.stdout).toContain('MCP server docs needs authorization; stdin is not a terminal: declined');
    expect(again.stdout).toMatch(/mcp: docs is failed: .*declined/);
    expect(server.authorizations).toBe(1); // only authorizeBefore's
  });

  it.runIf(terminalTestsRun)(
    'shows the authorization URL as a question at the terminal, then asks the elicitation field by field',
    async () => {
      const server = await oauthServer();
      const agent = await model();
      const { root, home, log } = project(server.url);
      const args = ['run', 'who am I?', '--base-url', agent.url, '--log', log];
      const t = dshInTerminal({ root, home, args, env: { DEEPSEEK_API_KEY: 'test-key' } });
      const screen = (): string => t.screen();
      try {
        const asked = await waitFor(
          'the authorization question',
          () => /(\S) MCP server (\S+) needs authorization\. Open this URL in a browser:\n\s*(\S+)/.exec(screen()),
          screen,
        );
        // Asked like an approval: the question mark, the server's name, what to do.
        expect([asked[1], asked[2]]).toEqual(['?', 'docs']);
        const url = new URL(asked[3] ?? '');
        expect(url.origin).toBe(server.origin);
        expect(url.searchParams.get('code_challenge_method')).toBe('S256');
        // No key: the browser's redirect reaching dsh answers the question.
        await browse(url.href);
        await waitFor('the echoed answer', () => (/\n {2}> authorized in the browser\n/.test(screen()) ? true : undefined), screen);
        // The elicitation, field by field: a new name, the age left at its default.
        await waitFor('the first field', () => (/name \(string, default "Ada"\): $/m.test(screen()) ? true : undefined), screen);
        expect(screen()).toContain('? MCP server docs asks: Who are you? (empty keeps the default, - declines)');
        t.keys('Grace', 'Enter');
        await waitFor('the second field', () => (/age \(integer, default 36\): $/m.test(screen()) ? true : undefined), screen);
        t.keys('Enter');
        expect(await t.exitCode()).toBe('0');
        expect(screen()).toMatch(/✔ (mcp__docs__whoami|docs: whoami) \[call_who\] ok/);
      } finally {
        t.close();
      }
      expect(server.authorizations).toBe(1);
      expect(server.lastElicited).toEqual({ name: 'Grace', age: 36 });
      expect(agent.problems).toEqual([]);
    },
  );

  it.runIf(terminalTestsRun)(
    'declines the authorization at once with n: the server fails as MCP_AUTH_REQUIRED and the run goes on',
    async () => {
      const server = await oauthServer();
      const agent = await model();
      const { root, home, log } = project(server.url);
      const args = ['run', 'who am I?', '--base-url', agent.url, '--log', log];
      const t = dshInTerminal({ root, home, args, env: { DEEPSEEK_API_KEY: 'test-key' } });
      const screen = (): string => t.screen();
      try {
        await waitFor('the authorization question', () => (/\[-\] decline\n +> $/m.test(screen()) ? true : undefined), screen);
        t.keys('n');
        // Nobody opens the page: the answer alone ends the wait (the server's own timeout is 5 minutes).
        expect(await t.exitCode()).toBe('0');
        const text = screen();
        expect(text).toMatch(/\n {2}> declined\n/);
        // The mcp package's MCP_AUTH_REQUIRED for a declined authorization (not its timeout's "not finished within").
        expect(text).toMatch(/mcp: docs is failed: MCP server "docs" needs OAuth authorization; the authorization was declined/);
      } finally {
        t.close();
      }
      expect(server.authorizations).toBe(0);
    },
  );
});
