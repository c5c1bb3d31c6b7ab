import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

/** A blocking hook on `mcp__notes__add` (an MCP-style tool with no Claude mapping: hooks see its own name). */
async function blockNotes(matcher: string, extra: Record<string, unknown> = {}) {
  const project = tempProject();
  const script = project.write('.claude/hooks/no-notes.sh', '#!/bin/sh\necho "notes are read-only" >&2\nexit 2\n', true);
  project.settings('.claude/settings.json', claudeHooks('PreToolUse', matcher, [{ type: 'command', command: script, ...extra }]));
  return hostFor(project);
}

describe('hooks on MCP tools', () => {
  it.each(['mcp__.*', 'mcp__notes__.*', '^mcp__notes__add$', 'mcp__notes__add'])('matcher %j reaches mcp__notes__add', async (matcher) => {
    const t = await blockNotes(matcher);
    expect(await t.call('mcp__notes__add', { text: 'x' })).toMatchObject({ status: 'denied', reason: 'notes are read-only' });
    expect(ran).toEqual([]);
    expect(eventsOf(t, 'hook/invoked')[0]?.data).toMatchObject({ tool: 'mcp__notes__add' });
  });

  it('does not reach it with a bare server name or another server', async () => {
    for (const matcher of ['mcp__notes', 'mcp__github__.*']) {
      const t = await blockNotes(matcher);
      expect((await t.call('mcp__notes__add', { text: 'x' })).status).toBe('ok');
    }
  });

  it('reads "if" MCP rules as permissions does: by server, by wildcard, and by argument', async () => {
    for (const rule of ['mcp__notes', 'mcp__notes__*', 'mcp__notes__add(*secret*)']) {
      const t = await blockNotes('mcp__.*', { if: rule });
      expect(await t.call('mcp__notes__add', { text: 'a secret' })).toMatchObject({ status: 'denied' });
    }
    const other = await blockNotes('mcp__.*', { if: 'mcp__github' });
    expect((await other.call('mcp__notes__add', { text: 'a secret' })).status).toBe('ok');
    const argument = await blockNotes('mcp__.*', { if: 'mcp__notes__add(*secret*)' });
    expect((await argument.call('mcp__notes__add', { text: 'groceries' })).status).toBe('ok');
  });
});
