import { fileURLToPath } from 'node:url';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, closeAll, serving, tempDir, writeFixture } from './fixtures/servers.js';
import { type McpOptions, type McpPlugin, mcp } from './index.js';

const hostileBin = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));
const object = (properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const tool = (name: string, inputSchema: Record<string, unknown> = object(), extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} (hostile)`,
  inputSchema,
  ...extra,
});

const baseTools = [
  tool('raw-echo', object({ n: { type: 'integer' }, d: { type: 'number' }, s: { type: 'string' } })),
  tool('crash'),
  tool('hang'),
  tool('flood'),
  tool('malformed'),
  tool('garbage-line'),
  tool('fails'),
  tool('structured', object({ value: {} }), { outputSchema: object({ count: { type: 'integer' } }, { required: ['count'] }) }),
  tool('big', object({ size: { type: 'integer' }, head: { type: 'string' }, tail: { type: 'string' } })),
  tool('change-tools', object({ tools: { type: 'array' } })),
];

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

async function hostile(tools: unknown[] = baseTools, extra: Partial<McpOptions> = {}, env: Record<string, string> = {}) {
  const plugin = mcp({
    servers: {
      bad: {
        command: process.execPath,
        args: [hostileBin],
        env: { HOSTILE_TOOLS_FILE: writeFixture(tempDir(), 'tools.json', JSON.stringify(tools)), ...env },
      },
    },
    retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 },
    killGraceMs: 500,
    ...extra,
  });
  plugins.push(plugin);
  const t = await createTestHost({ plugins: [plugin] });
  await serving(plugin);
  return { plugin, t };
}

describe('a hostile server', () => {
  it('reads every page of tools/list', async () => {
    const { plugin } = await hostile();
    expect(
      plugin
        .servers()[0]
        ?.tools.map((t) => t.serverTool)
        .sort(),
    ).toEqual(baseTools.map((t) => t.name).sort());
  });

  it('passes arguments losslessly: big integers and long decimals arrive digit for digit', async () => {
    const { t } = await hostile();
    const outcome = await t.call('mcp__bad__raw-echo', '{"n":123456789012345678901234567890,"d":0.10000000000000000000000000001,"s":"x"}');
    expect(outcome).toMatchObject({ status: 'ok' });
    const text = outcome.status === 'ok' ? (outcome.output as { content: { text: string }[] }).content[0]?.text : '';
    expect(text).toBe('{"n":123456789012345678901234567890,"d":0.10000000000000000000000000001,"s":"x"}');
  });

  it('crashes mid-call: the call ends with MCP_SERVER_EXITED and the stderr tail, and the server is restarted', async () => {
    const { plugin, t } = await hostile();
    const firstPid = plugin.servers()[0]?.pid as number;
    const outcome = await t.call('mcp__bad__crash', {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'MCP_SERVER_EXITED' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('about to crash');
    expect(plugin.servers()[0]?.lastError?.code).toBe('MCP_SERVER_EXITED');
    expect(alive(-firstPid)).toBe(false);
    await plugin.ready();
    await expect.poll(() => plugin.servers()[0]?.state, { timeout: 15_000 }).toBe('ready');
    expect(plugin.servers()[0]?.restarts).toBe(1);
    expect(await t.call('mcp__bad__fails', {})).toMatchObject({ status: 'error', error: { code: 'MCP_TOOL_ERROR' } });
  });

  it('answers MCP_SERVER_UNAVAILABLE while the server is down, never hanging', async () => {
    const { plugin, t } = await hostile(baseTools, { retry: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 2 } });
    await t.call('mcp__bad__crash', {});
    expect(plugin.servers()[0]?.state).toBe('restarting');
    const outcome = await t.call('mcp__bad__raw-echo', { n: 1 });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'MCP_SERVER_UNAVAILABLE' } });
  });

  it('never answers: the call times out with TOOL_TIMEOUT and the server is told to cancel', async () => {
    const { plugin, t } = await hostile(baseTools, { callTimeoutMs: 300 });
    const outcome = await t.call('mcp__bad__hang', {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    await expect.poll(() => plugin.servers()[0]?.stderrTail).toContain('cancelled request');
  });

  it('never answers under the timeout policy: its mcp__* deadline applies, and the server is told to cancel', async () => {
    const plugin = mcp({
      servers: {
        bad: {
          command: process.execPath,
          args: [hostileBin],
          env: { HOSTILE_TOOLS_FILE: writeFixture(tempDir(), 'tools.json', JSON.stringify(baseTools)) },
        },
      },
    });
    plugins.push(plugin);
    const t = await createTestHost({ plugins: [plugin, timeoutPolicy({ tools: { 'mcp__*': 300 } })] });
    await plugin.ready();
    const outcome = await t.call('mcp__bad__hang', {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    await expect.poll(() => plugin.servers()[0]?.stderrTail).toContain('cancelled request');
    expect(plugin.servers()[0]?.state).toBe('ready');
  });

  it('floods progress: at most maxProgressUpdates reach the UI and the call has one result', async () => {
    const { t } = await hostile(baseTools, { maxProgressUpdates: 10 });
    const outcome = await t.call('mcp__bad__flood', {});
    expect(outcome).toMatchObject({ status: 'ok', output: { content: [{ type: 'text', text: 'flooded' }] } });
    expect(t.ui.progressUpdates).toHaveLength(10);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('sends a malformed result: MCP_INVALID_RESULT', async () => {
    const { t } = await hostile();
    expect(await t.call('mcp__bad__malformed', {})).toMatchObject({ status: 'error', error: { code: 'MCP_INVALID_RESULT' } });
  });

  it('writes a line that is not JSON-RPC: it is ignored and the call still answers', async () => {
    const { t } = await hostile();
    expect(await t.call('mcp__bad__garbage-line', {})).toMatchObject({ status: 'ok', output: { content: [{ text: 'after garbage' }] } });
  });

  it('reports isError as MCP_TOOL_ERROR with the server text', async () => {
    const { t } = await hostile();
    expect(await t.call('mcp__bad__fails', {})).toMatchObject({
      status: 'error',
      error: { code: 'MCP_TOOL_ERROR', message: 'the server says no' },
    });
  });

  it('checks structuredContent against the output schema', async () => {
    const { t } = await hostile();
    expect(await t.call('mcp__bad__structured', { value: { count: 3 } })).toMatchObject({
      status: 'ok',
      output: { structuredContent: { count: 3 } },
    });
    expect(await t.call('mcp__bad__structured', { value: { count: 'three' } })).toMatchObject({
      status: 'error',
      error: { code: 'MCP_OUTPUT_SCHEMA_MISMATCH' },
    });
  });

  it('caps a 4 MB result like bash output: head, a marker counting the cut, and the tail with the final status', async () => {
    const { t } = await hostile(baseTools, { maxResultChars: 1_000 });
    const head = 'build started\n';
    const tail = '\nFAILED: 3 tests failed (exit status 1)';
    const size = 4_000_000;
    const outcome = await t.call('mcp__bad__big', { size, head, tail });
    const original = head.length + size + tail.length;
    expect(outcome).toMatchObject({
      status: 'ok',
      output: { truncated: { originalChars: original, keptChars: 1_000, omittedChars: original - 1_000 } },
    });
    const content = outcome.status === 'ok' ? (outcome.output as { content: { type: string; text: string }[] }).content : [];
    expect(content).toHaveLength(1);
    const text = content[0]?.text ?? '';
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(text).toContain(`[${original - 1_000} characters cut from the middle: the result passed its limit of 1000]`);
    expect(text.length).toBeLessThan(1_200);
  });

  it('changes its tool list: tools are re-registered on notifications/tools/list_changed', async () => {
    const { plugin, t } = await hostile();
    const next = [tool('raw-echo', object({ s: { type: 'string' } }, { required: ['s'] })), tool('fresh')];
    await t.call('mcp__bad__change-tools', { tools: next });
    await expect
      .poll(async () => {
        await plugin.settled();
        return t.host.tools
          .list()
          .map((d) => d.name)
          .sort();
      })
      .toEqual(['mcp__bad__fresh', 'mcp__bad__raw-echo']);
    expect(await t.call('mcp__bad__crash', {})).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
    expect(await t.call('mcp__bad__raw-echo', { n: 1 })).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
  });

  it('declares hostile schemas and names: each bad tool is skipped with a reason, the good ones work', async () => {
    const tools = [
      tool('not-object', { type: 'string' }),
      tool('remote-ref', object({ a: { $ref: 'https://example.com/schema.json' } })),
      tool('x'.repeat(80)),
      tool('huge', object({ a: { type: 'string', description: 'y'.repeat(300_000) } })),
      tool(
        'conditional',
        object(
          { a: { type: 'integer' }, b: { type: 'string' } },
          Object.fromEntries([
            ['if', { properties: { a: { const: 1 } } }],
            ['then', { required: ['b'] }],
          ]),
        ),
      ),
      tool('bad name/with spaces'),
      tool('ok'),
    ];
    const { plugin, t } = await hostile(tools);
    const status = plugin.servers()[0];
    expect(status?.tools.map((x) => x.name).sort()).toEqual(['mcp__bad__bad_name_with_spaces', 'mcp__bad__conditional', 'mcp__bad__ok']);
    expect(status?.skipped.map((s) => s.serverTool).sort()).toEqual(['huge', 'not-object', 'remote-ref', 'x'.repeat(80)].sort());
    expect(status?.tools.find((x) => x.serverTool === 'conditional')?.validator).toBe('ajv');
    expect(await t.call('mcp__bad__conditional', { a: 1 })).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(await t.call('mcp__bad__conditional', { a: 1, b: 'x' })).toMatchObject({
      status: 'error',
      error: { code: 'MCP_PROTOCOL_ERROR' },
    });
  });

  it('kills a grandchild left in the server process group on close', async () => {
    const marker = `dsh-mcp-grandchild-${process.pid}-${Date.now()}`;
    const { plugin } = await hostile(baseTools, {}, { HOSTILE_CHILD_MARKER: marker });
    const pid = plugin.servers()[0]?.pid as number;
    expect(alive(-pid)).toBe(true);
    await plugin.close();
    expect(alive(-pid)).toBe(false);
  });

  it('a server that cannot start is reported with MCP_START_FAILED and retried until it gives up', async () => {
    const plugin = mcp({
      servers: { missing: { command: '/nonexistent/mcp-server' } },
      retry: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 2 },
    });
    plugins.push(plugin);
    await createTestHost({ plugins: [plugin] });
    await expect.poll(() => plugin.servers()[0]?.state).toBe('failed');
    expect(plugin.servers()[0]?.lastError?.code).toBe('MCP_START_FAILED');
  });
});
