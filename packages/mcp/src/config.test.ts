// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in plain strings is the configuration syntax under test
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfigs } from './config.js';
import { expandEnv } from './expand-env.js';
import { closeAll, everythingBin, tempDir, writeFixture } from './fixtures/servers.js';
import { type McpPlugin, mcp } from './index.js';

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

describe('${VAR} expansion', () => {
  it('expands set variables, uses defaults, and names unset ones', () => {
    expect(expandEnv('${A}/${B:-fallback}/${C:-}', { A: 'a' })).toEqual({ value: 'a/fallback/', missing: [] });
    expect(expandEnv('x${MISSING}y', {})).toEqual({ value: 'xy', missing: ['MISSING'] });
    expect(expandEnv('$A and ${not valid}', { A: 'a' }).value).toBe('$A and ${not valid}');
  });
});

describe('configuration files', () => {
  it('reads .mcp.json and settings mcpServers, expands variables, resolves cwd from the file', async () => {
    const dir = tempDir();
    const mcpJson = writeFixture(
      dir,
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          local: { command: '${NODE_BIN}', args: ['${SCRIPT}', '--flag=${FLAG:-on}'], env: { TOKEN: '${TOKEN}' }, cwd: 'sub' },
          remote: { type: 'http', url: 'https://example.invalid/${PATH_PART:-mcp}', headers: { Authorization: 'Bearer ${TOKEN}' } },
        },
      }),
    );
    const settings = writeFixture(dir, 'settings.json', JSON.stringify({ permissions: {}, mcpServers: { local: { command: 'other' } } }));
    const { servers, problems } = await loadServerConfigs({
      files: [mcpJson, settings],
      servers: {},
      overrides: { remote: { trusted: true } },
      env: { NODE_BIN: '/usr/bin/node', SCRIPT: 's.js', TOKEN: 't0k' },
      cwd: '/',
    });
    expect(problems).toEqual([]);
    expect(servers.find((s) => s.name === 'local')).toMatchObject({ transport: 'stdio', command: 'other', cwd: dir });
    const remote = servers.find((s) => s.name === 'remote');
    expect(remote).toMatchObject({ transport: 'http', headers: { Authorization: 'Bearer t0k' }, trusted: true });
    expect(remote?.transport === 'http' && remote.url.href).toBe('https://example.invalid/mcp');
  });

  it('reports a bad entry with its file and key, and still starts the other servers', async () => {
    const dir = tempDir();
    const file = writeFixture(
      dir,
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          good: { command: process.execPath, args: [everythingBin, 'stdio'] },
          noCommand: { args: ['x'] },
          badArgs: { command: 'x', args: 'not-a-list' },
          old: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
          needsVar: { command: '${DSH_MCP_TEST_UNSET_VAR}' },
        },
      }),
    );
    const plugin = mcp({ configFiles: [file, join(dir, 'missing.json')], env: {} });
    plugins.push(plugin);
    const t = await createTestHost({ plugins: [plugin] });
    await plugin.ready();
    const byName = Object.fromEntries(plugin.servers().map((s) => [s.name, s]));
    expect(byName.good?.state).toBe('ready');
    expect(t.host.tools.get('mcp__good__echo')).toBeDefined();
    for (const name of ['noCommand', 'badArgs', 'old', 'needsVar']) {
      expect(byName[name]).toMatchObject({ state: 'invalid', lastError: { code: 'MCP_CONFIG_INVALID' } });
      expect(byName[name]?.lastError?.message).toContain(`${file}: mcpServers.${name}`);
    }
    expect(byName.badArgs?.lastError?.message).toContain('mcpServers.badArgs');
    expect(byName.old?.lastError?.message).toContain('sse');
    expect(byName.needsVar?.lastError?.message).toContain('DSH_MCP_TEST_UNSET_VAR');
    expect(plugin.problems().some((p) => p.source.endsWith('missing.json') && p.message.includes('does not exist'))).toBe(true);
  });

  it('keeps a file that is not JSON from stopping servers given in code', async () => {
    const dir = tempDir();
    const broken = writeFixture(dir, '.mcp.json', '{ "mcpServers": ');
    const plugin = mcp({ configFiles: [broken], servers: { everything: { command: process.execPath, args: [everythingBin, 'stdio'] } } });
    plugins.push(plugin);
    await createTestHost({ plugins: [plugin] });
    await plugin.ready();
    expect(plugin.problems()[0]).toMatchObject({ source: broken, message: expect.stringContaining('not JSON') });
    expect(plugin.servers()[0]?.state).toBe('ready');
  });

  it('takes an empty .mcp.json for no servers, as the bash sandbox leaves one while a command runs', async () => {
    const dir = tempDir();
    const empty = writeFixture(dir, '.mcp.json', '');
    const plugin = mcp({ configFiles: [empty] });
    plugins.push(plugin);
    await createTestHost({ plugins: [plugin] });
    await plugin.ready();
    expect(plugin.problems()).toEqual([]);
    expect(plugin.servers()).toEqual([]);
  });

  it('throws INVALID_OPTIONS naming the field for bad options', () => {
    expect(() => mcp({ callTimeoutMs: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('callTimeoutMs') }),
    );
    expect(() => mcp({ overrides: { x: { trusted: 'yes' as unknown as boolean } } })).toThrow(/overrides\.x\.trusted/);
  });

  it('honours allowTools and denyTools, and disabled servers', async () => {
    const plugin = mcp({
      servers: {
        everything: { command: process.execPath, args: [everythingBin, 'stdio'], allowTools: ['echo', 'get-*'], denyTools: ['get-env'] },
        off: { command: process.execPath, args: [everythingBin, 'stdio'], disabled: true },
      },
    });
    plugins.push(plugin);
    const t = await createTestHost({ plugins: [plugin] });
    await plugin.ready();
    const names = t.host.tools.list().map((d) => d.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    expect(names).not.toContain('mcp__everything__get-env');
    expect(names).not.toContain('mcp__everything__trigger-long-running-operation');
    expect(plugin.servers().map((s) => s.name)).toEqual(['everything']);
    expect(plugin.servers()[0]?.skipped).toContainEqual({ serverTool: 'get-env', reason: 'in denyTools' });
  });
});
