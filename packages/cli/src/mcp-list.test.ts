import { processExists } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import type { McpListReport } from './commands/mcp-list.js';
import { notesServer, put, runDsh, scratchDir } from './fixtures/run-dsh.js';

/** A workspace whose .mcp.json starts the notes server, a server that dies at once and a bad entry; rules and a hook in settings. */
function project(): { root: string; home: string } {
  const root = scratchDir();
  const home = scratchDir();
  put(
    root,
    '.mcp.json',
    JSON.stringify({
      mcpServers: {
        notes: { command: process.execPath, args: [notesServer] },
        broken: { command: process.execPath, args: ['-e', "console.error('no database here'); process.exit(3)"] },
        bad: { args: 1 },
      },
    }),
  );
  put(
    root,
    '.claude/settings.json',
    `${JSON.stringify(
      {
        permissions: { allow: ['mcp__notes__list_notes'], deny: ['mcp__notes__delete_*'] },
        hooks: {
          PreToolUse: [
            { matcher: 'mcp__.*', hooks: [{ type: 'command', command: './hooks/audit.sh' }] },
            { matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/bash.sh' }] },
          ],
        },
      },
      null,
      2,
    )}\n`,
  );
  // One start attempt: the broken server is reported failed at once instead of being retried.
  put(root, 'dsh.config.json', JSON.stringify({ plugins: { mcp: { retry: { maxAttempts: 1 } } } }));
  return { root, home };
}

describe('dsh mcp list', () => {
  it('starts the configured servers and lists states, tools, and the rules and hooks that apply to each tool', async () => {
    const { root, home } = project();
    const run = await runDsh(['mcp', 'list', '--json'], { cwd: root, home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as McpListReport;
    const byName = new Map(report.servers.map((s) => [s.name, s]));
    const notes = byName.get('notes');
    expect(notes).toMatchObject({ state: 'ready', transport: 'stdio', serverInfo: { name: 'dsh-demo-notes', version: '1.0.0' } });
    expect(notes?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const tools = new Map(notes?.tools.map((t) => [t.name, t]));
    expect([...tools.keys()]).toEqual(['mcp__notes__list_notes', 'mcp__notes__add_note', 'mcp__notes__delete_notes']);
    expect(tools.get('mcp__notes__list_notes')?.rules).toEqual([
      { list: 'allow', rule: 'mcp__notes__list_notes', where: '.claude/settings.json:4' },
    ]);
    expect(tools.get('mcp__notes__list_notes')?.decision?.decision).toBe('allow');
    expect(tools.get('mcp__notes__delete_notes')?.rules).toEqual([
      { list: 'deny', rule: 'mcp__notes__delete_*', where: '.claude/settings.json:7' },
    ]);
    expect(tools.get('mcp__notes__delete_notes')?.decision?.decision).toBe('deny');
    expect(tools.get('mcp__notes__add_note')?.rules).toEqual([]);
    expect(tools.get('mcp__notes__add_note')?.decision?.decision).toBe('ask');
    // The mcp__.* hook applies to every MCP tool, the Bash one to none.
    for (const tool of tools.values()) expect(tool.hooks.map((h) => h.command)).toEqual(['./hooks/audit.sh']);

    expect(byName.get('broken')).toMatchObject({ state: 'failed', lastError: { code: 'MCP_START_FAILED' } });
    expect(byName.get('broken')?.stderrTail).toContain('no database here');
    expect(byName.get('bad')).toMatchObject({ state: 'invalid', lastError: { code: 'MCP_CONFIG_INVALID' } });
    expect(report.problems.map((p) => p.key)).toEqual(['mcpServers.bad']);
  });

  it('prints the same for people, and stops every server it started', async () => {
    const { root, home } = project();
    const run = await runDsh(['mcp', 'list'], { cwd: root, home });
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/notes ready · stdio · pid (\d+) · protocol \S+ · dsh-demo-notes 1\.0\.0 \(\.mcp\.json\)/);
    expect(out).toMatch(
      /mcp__notes__delete_notes — Deletes every note\.\n +rule: +deny "mcp__notes__delete_\*" \(\.claude\/settings\.json:7\)/,
    );
    expect(out).toContain('hook:  PreToolUse matcher "mcp__.*" → ./hooks/audit.sh (.claude/settings.json)');
    expect(out).toMatch(/broken failed/);
    expect(out).toContain('no database here');
    expect(out).toContain('! .mcp.json mcpServers.bad:');
    const pid = Number(/notes ready · stdio · pid (\d+)/.exec(out)?.[1]);
    // The server's process is gone once dsh has exited.
    expect(processExists(pid)).toBe(false);
  });

  it('says when no server is configured, and refuses unknown subcommands', async () => {
    const root = scratchDir();
    const run = await runDsh(['mcp', 'list'], { cwd: root, home: scratchDir() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No MCP servers are configured');
    const wrong = await runDsh(['mcp', 'start'], { cwd: root, home: root });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('did you mean "mcp list"');
  });
});
