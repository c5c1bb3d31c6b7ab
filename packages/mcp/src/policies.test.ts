import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, filesystemBin, patientStartup, serving, tempDir, writeFixture } from './fixtures/servers.js';
import { type McpPlugin, mcp } from './index.js';

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

/** server-filesystem from the registry, serving `root`, as the server "fs". */
function filesystem(root: string): McpPlugin {
  const plugin = mcp({ servers: { fs: { command: process.execPath, args: [filesystemBin, root] } }, ...patientStartup });
  plugins.push(plugin);
  return plugin;
}

/** A test host whose MCP servers have made their first start: the calls below need their tools. */
async function hostServing(list: Plugin[]) {
  const t = await createTestHost({ plugins: list });
  await serving(...plugins);
  return t;
}

function rules(root: string, allow: string[], deny: string[]): Plugin {
  return permissions({ projectDir: root, cwd: root, homeDir: root, settingsFiles: false, grantsFile: false, rules: { allow, deny } });
}

async function writeBoth(root: string, policy: Plugin) {
  const t = await hostServing([toolFs({ cwd: root }), filesystem(root), policy]);
  const viaMcp = await t.call('mcp__fs__write_file', { path: join(root, 'mcp.txt'), content: 'from mcp' });
  const viaFs = await t.call('write', { file_path: join(root, 'fs.txt'), content: 'from tool-fs' });
  const read = await t.call('mcp__fs__list_allowed_directories', {});
  return { viaMcp, viaFs, read };
}

describe('permission rules on MCP tools', () => {
  for (const rule of ['mcp__fs__write_file', 'mcp__fs__write*', 'mcp__fs__*', 'mcp__fs']) {
    it(`deny ${rule} stops server-filesystem's write_file as Write stops tool-fs's write`, async () => {
      const root = tempDir();
      const allowReads = rule === 'mcp__fs__*' || rule === 'mcp__fs' ? [] : ['mcp__fs__list_allowed_directories'];
      const { viaMcp, viaFs, read } = await writeBoth(root, rules(root, ['Write', 'mcp__fs__write_file', ...allowReads], [rule, 'Write']));
      expect(viaMcp).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'permissions' });
      expect(viaFs).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'permissions' });
      expect(viaMcp.status === 'denied' && viaMcp.reason).toContain(rule);
      expect(existsSync(join(root, 'mcp.txt'))).toBe(false);
      expect(existsSync(join(root, 'fs.txt'))).toBe(false);
      if (allowReads.length > 0) expect(read.status).toBe('ok');
      else expect(read.status).toBe('denied');
    });
  }

  it('allow mcp__fs__* lets the write through to disk', async () => {
    const root = tempDir();
    const t = await hostServing([filesystem(root), rules(root, ['mcp__fs__*'], [])]);
    const outcome = await t.call('mcp__fs__write_file', { path: join(root, 'ok.txt'), content: 'written' });
    expect(outcome.status).toBe('ok');
    expect(readFileSync(join(root, 'ok.txt'), 'utf8')).toBe('written');
  });
});

describe('Claude Code hooks on MCP tools', () => {
  /** A PreToolUse hook that records its payload and blocks (exit 2) every call it sees. */
  function blockingHook(dir: string): { command: string; log: string } {
    const log = join(dir, 'hook-payloads.jsonl');
    const command = writeFixture(
      dir,
      'block.sh',
      `#!/usr/bin/env bash\npayload=$(cat)\nprintf '%s\\n' "$payload" >> ${JSON.stringify(log)}\necho "blocked by the test hook" >&2\nexit 2\n`,
      0o755,
    );
    return { command, log };
  }

  for (const matcher of ['mcp__.*', 'mcp__fs__.*', 'mcp__fs__write_file']) {
    it(`a PreToolUse hook with matcher ${matcher} blocks server-filesystem's write_file and sees Claude's payload`, async () => {
      const root = tempDir();
      const { command, log } = blockingHook(tempDir());
      const bridge = hooksBridge({
        projectDir: root,
        homeDir: root,
        userSettings: false,
        sources: ['claude'],
        hooks: { claude: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command }] }] } },
      });
      const t = await hostServing([filesystem(root), bridge]);
      const target = join(root, 'blocked.txt');
      const outcome = await t.call('mcp__fs__write_file', { path: target, content: 'nope' });
      expect(outcome).toMatchObject({ status: 'denied', stage: 'pre-execute' });
      expect(outcome.status === 'denied' && outcome.reason).toContain('blocked by the test hook');
      expect(existsSync(target)).toBe(false);
      const payload = JSON.parse(readFileSync(log, 'utf8').trim().split('\n')[0] as string);
      expect(payload).toMatchObject({
        hook_event_name: 'PreToolUse',
        tool_name: 'mcp__fs__write_file',
        tool_input: { path: target, content: 'nope' },
      });
    });
  }

  it('a hook matching another server leaves this one alone', async () => {
    const root = tempDir();
    const { command, log } = blockingHook(tempDir());
    const bridge = hooksBridge({
      projectDir: root,
      homeDir: root,
      userSettings: false,
      sources: ['claude'],
      hooks: { claude: { PreToolUse: [{ matcher: 'mcp__github__.*', hooks: [{ type: 'command', command }] }] } },
    });
    const t = await hostServing([filesystem(root), bridge]);
    const outcome = await t.call('mcp__fs__write_file', { path: join(root, 'free.txt'), content: 'ok' });
    expect(outcome.status).toBe('ok');
    expect(existsSync(log)).toBe(false);
  });
});
