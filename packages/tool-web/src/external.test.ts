import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { type PermissionPromptRequest, permissions } from '@deepseek-ai/dsh-permissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeResolver, startServer, type TestServer } from './fixtures/server.js';
import { toolWeb, webFetchExternal, webSearchExternal } from './index.js';

describe('external names', () => {
  it("maps web_fetch to Claude's WebFetch { url, prompt } and back, dropping the prompt", () => {
    const claude = webFetchExternal.claude;
    expect(claude?.name).toBe('WebFetch');
    expect(claude?.toExternal({ url: 'https://example.com/a', format: 'text' })).toEqual({
      url: 'https://example.com/a',
      prompt: 'Return the main content of the page as text.',
    });
    expect(claude?.fromExternal({ url: 'https://example.com/a', prompt: 'summarise it' })).toEqual({ url: 'https://example.com/a' });
  });

  it("maps web_fetch to Gemini's web_fetch { prompt } and takes the first URL from a prompt", () => {
    const gemini = webFetchExternal.gemini;
    expect(gemini?.toExternal({ url: 'https://example.com/' }).prompt).toContain('https://example.com/');
    expect(gemini?.fromExternal({ prompt: 'Summarise https://a.example/x and https://b.example/y please' })).toEqual({
      url: 'https://a.example/x',
    });
  });

  it("maps web_search to Claude's WebSearch unchanged and to Gemini's google_web_search", () => {
    const args = { query: 'tides', allowed_domains: ['noaa.gov'], blocked_domains: ['spam.example'] };
    expect(webSearchExternal.claude?.name).toBe('WebSearch');
    expect(webSearchExternal.claude?.toExternal(args)).toEqual(args);
    expect(webSearchExternal.claude?.fromExternal(args)).toEqual(args);
    expect(webSearchExternal.gemini?.toExternal(args)).toEqual({ query: 'tides' });
  });
});

let site: TestServer;
let home: string;
beforeAll(async () => {
  site = await startServer((req, res) => {
    if (req.url === '/hop') {
      res.statusCode = 302;
      res.setHeader('location', site.url('/', 'other.test'));
      return res.end();
    }
    res.setHeader('content-type', 'text/plain');
    res.end('hello');
  });
  home = mkdtempSync(join(tmpdir(), 'dsh-tool-web-'));
});
afterAll(async () => {
  await site.close();
  rmSync(home, { recursive: true, force: true });
});

const resolver = () => fakeResolver({ 'docs.example.com': '127.0.0.1', 'example.com': '127.0.0.1', 'other.test': '127.0.0.1' });
const web = () => toolWeb({ allow: ['example.com', '*.example.com', 'other.test'], ports: [site.port], resolver: resolver() });

describe('WebFetch(domain:…) rules through the permissions plugin', () => {
  async function governed(rules: { allow?: string[]; deny?: string[] }) {
    const perms = permissions({ projectDir: home, homeDir: home, settingsFiles: false, grantsFile: false, rules });
    const prompts: PermissionPromptRequest[] = [];
    const t = await createTestHost({
      defaultDecision: 'ask',
      plugins: [web(), perms],
      approval: perms.approval((request) => {
        prompts.push(request);
        return 'rejected';
      }),
    });
    return { ...t, prompts };
  }

  it('finds web_fetch by its Claude Code name', async () => {
    const t = await governed({});
    expect(t.host.tools.findExternal('claude', 'WebFetch')?.name).toBe('web_fetch');
  });

  it('runs a fetch an allow rule names, and asks about any other domain', async () => {
    const t = await governed({ allow: ['WebFetch(domain:example.com)'] });
    expect(await t.call('web_fetch', { url: site.url('/', 'example.com') })).toMatchObject({ status: 'ok', output: { content: 'hello' } });
    expect(await t.call('web_fetch', { url: site.url('/', 'other.test') })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.prompts).toHaveLength(1);
    expect(t.prompts[0]?.remember.suggestions[0]?.rules).toEqual(['WebFetch(domain:other.test)']);
  });

  it('does not carry an allow rule across a redirect to another domain: the next call is asked about', async () => {
    const t = await governed({ allow: ['WebFetch(domain:example.com)'] });
    const hop = await t.call('web_fetch', { url: site.url('/hop', 'example.com') });
    expect(hop).toMatchObject({
      status: 'error',
      error: { code: 'WEB_REDIRECT_TO_OTHER_HOST', data: { location: site.url('/', 'other.test') } },
    });
    expect(await t.call('web_fetch', { url: site.url('/', 'other.test') })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('denies a fetch a deny rule names, without a prompt and without a connection', async () => {
    const t = await governed({ allow: ['WebFetch(domain:*.example.com)'], deny: ['WebFetch(domain:docs.example.com)'] });
    const before = site.connections();
    expect(await t.call('web_fetch', { url: site.url('/', 'docs.example.com') })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(site.connections()).toBe(before);
    expect(t.prompts).toHaveLength(0);
  });
});

describe('Claude Code hooks through hooks-bridge', () => {
  it('gives a PreToolUse hook on WebFetch the Claude-shaped input, and lets it deny', async () => {
    const payload = join(home, 'payload.json');
    const command = `cat > '${payload}'; if grep -q other.test '${payload}'; then echo 'no fetching other.test' >&2; exit 2; fi`;
    const t = await createTestHost({
      plugins: [
        web(),
        hooksBridge({
          projectDir: home,
          homeDir: home,
          hooks: { claude: { PreToolUse: [{ matcher: 'WebFetch', hooks: [{ type: 'command', command }] }] } },
        }),
      ],
    });
    expect(await t.call('web_fetch', { url: site.url('/x', 'example.com') })).toMatchObject({ status: 'ok' });
    expect(JSON.parse(readFileSync(payload, 'utf8'))).toMatchObject({
      tool_name: 'WebFetch',
      tool_input: { url: site.url('/x', 'example.com'), prompt: 'Return the main content of the page as markdown.' },
    });
    expect(await t.call('web_fetch', { url: site.url('/', 'other.test') })).toMatchObject({
      status: 'denied',
      reason: expect.stringContaining('no fetching other.test'),
    });
  });
});
